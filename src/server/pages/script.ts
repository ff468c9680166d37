/**
 * The one script of the public pages, served as a file at SCRIPT_PATH (never inline, so the CSP
 * needs no 'unsafe-inline'). Plain ES2017, no build step. It only adds to the server-rendered
 * pages: on a dashboard, rotation of pages of checks and a refresh of the list (states,
 * figures, charts) from `/dashboards/{customUrl}/live`, parsed inert by DOMParser and put in
 * place in one DOM operation (no reload, no flicker); on a status page, a refresh of its live part (states, incidents) from
 * `/status/{url}/live`, parsed inert by DOMParser (the server's escaped HTML; scripts in a
 * parsed document never run).
 */
export const PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var body = document.body;
  if (!body) return;
  if (body.hasAttribute('data-mac-status')) return statusPage(body);
  if (!body.hasAttribute('data-mac-dashboard')) return;
  var ds = body.dataset;
  var src = ds.src;
  var refreshMs = Math.max(1, Number(ds.refresh) || 60) * 1000;
  var rateMs = Math.max(1, Number(ds.rate) || 60) * 1000;
  var paginate = ds.paginate === '1';
  var per = Math.max(1, Number(ds.perPage) || 15);
  var page = 0;

  function pageCount() {
    var n = document.querySelectorAll('#checks > li').length;
    return paginate ? Math.max(1, Math.ceil(n / per)) : 1;
  }

  function show() {
    var count = pageCount();
    if (page >= count) page = 0;
    var items = document.querySelectorAll('#checks > li');
    for (var i = 0; i < items.length; i++) items[i].hidden = paginate && Math.floor(i / per) !== page;
    body.setAttribute('data-current-page', String(page));
    var label = document.getElementById('page-of');
    if (label) label.textContent = count > 1 ? ' \u00b7 page ' + (page + 1) + ' of ' + count : '';
  }

  // The refresh fetches the page's changing parts (/live, server-rendered: states, figures and
  // charts) and puts its list of checks, incidents and time in place, parsed inert by DOMParser
  // (scripts in it never run).
  function swap(next, id) {
    var fresh = next.getElementById(id);
    var here = document.getElementById(id);
    if (fresh && here) here.replaceWith(document.importNode(fresh, true));
  }

  function refresh() {
    fetch(src, { cache: 'no-store', credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, 'text/html');
        swap(next, 'checks');
        swap(next, 'incidents');
        swap(next, 'updated');
        body.removeAttribute('data-stale');
        show();
        var updated = document.getElementById('updated');
        body.setAttribute('data-refreshed', updated ? updated.getAttribute('datetime') : new Date().toISOString());
      })
      .catch(function () { body.setAttribute('data-stale', ''); });
  }

  // WCAG 2.2.2: rotation and refresh can be paused.
  var paused = false;
  var pager = document.getElementById('pager');
  if (pager) {
    var button = document.createElement('button');
    button.type = 'button';
    button.id = 'pause';
    button.setAttribute('aria-pressed', 'false');
    button.textContent = 'Pause updates';
    button.addEventListener('click', function () {
      paused = !paused;
      button.setAttribute('aria-pressed', String(paused));
      button.textContent = paused ? 'Resume updates' : 'Pause updates';
    });
    pager.appendChild(document.createTextNode(' '));
    pager.appendChild(button);
  }
  show();
  if (paginate) setInterval(function () { if (!paused && pageCount() > 1) { page = (page + 1) % pageCount(); show(); } }, rateMs);
  if (src) setInterval(function () { if (!paused) refresh(); }, refreshMs);

  function statusPage(body) {
    var src = body.dataset.src;
    var every = Math.max(1, Number(body.dataset.refresh) || 60) * 1000;
    setInterval(function () {
      fetch(src, { cache: 'no-store', credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
        .then(function (text) {
          var next = new DOMParser().parseFromString(text, 'text/html').getElementById('live');
          var live = document.getElementById('live');
          if (next && live) live.replaceWith(document.importNode(next, true));
          body.removeAttribute('data-stale');
          body.setAttribute('data-refreshed', new Date().toISOString());
        })
        .catch(function () { body.setAttribute('data-stale', ''); });
    }, every);
  }
})();
`;
