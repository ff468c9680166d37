// Multi-step check: browse the catalogue, put an item in the cart, reach the payment step.
const { test, expect } = require('@playwright/test');

const baseUrl = process.env.SHOP_API_URL;

test('checkout flow', async ({ request }) => {
  const products = await request.get(`${baseUrl}/products?limit=1`);
  expect(products.ok()).toBeTruthy();
  const [product] = await products.json();

  const cart = await request.post(`${baseUrl}/cart`, { data: { productId: product.id, quantity: 1 } });
  expect(cart.status()).toBe(201);
  const { cartId } = await cart.json();

  const checkout = await request.post(`${baseUrl}/cart/${cartId}/checkout`, {
    data: { email: process.env.SHOP_USER, payment: 'test-card' },
  });
  expect(checkout.status()).toBe(200);
  expect(await checkout.json()).toHaveProperty('paymentIntent');
});
