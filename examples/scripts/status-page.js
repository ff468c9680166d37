// Multi-step check of the shop's public pages, as `mac serve` shows them (no API key needed):
// the status page, then the data behind the status dashboard. API calls only (the `request`
// fixture); multi-step checks have no browser.
const { test, expect } = require('@playwright/test');

const base = process.env.STATUS_URL;

test('public status pages answer', async ({ request }) => {
  const page = await request.get(`${base}/status/shop`);
  expect(page.status()).toBe(200);
  expect(await page.text()).toContain('Shop status');

  const data = await request.get(`${base}/dashboards/shop-status/data.json`);
  expect(data.status()).toBe(200);
  expect(await data.json()).toEqual(expect.any(Object));
});
