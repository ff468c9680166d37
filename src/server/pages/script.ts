/**
 * The one script of the public pages, served as a file at SCRIPT_PATH (never inline, so the CSP
 * needs no 'unsafe-inline'). Plain ES2017, no build step. It only adds to the server-rendered
 * pages: on a dashboard, rotation of pages of checks and refresh of the data from data.json,
 * replacing the list in one DOM operation (no reload, no flicker; text goes in through text
 * nodes only); on a status page, a refresh of its live part (states, incidents) from
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
  var expand = ds.expand === '1';
  var ICON = { passing: '\u2713', degraded: '!', failing: '\u2715', 'no-data': '\u2013' };
  var page = 0;

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); });
    (kids || []).forEach(function (k) { if (k !== null && k !== undefined) e.appendChild(typeof k === 'string' ? document.createTextNode(k) : k); });
    return e;
  }
  function ms(v) { return v === null || v === undefined ? '\u2013' : v + ' ms'; }
  function pct(v) { return v === null || v === undefined ? '\u2013' : v.toFixed(2) + ' %'; }
  function fig(label, value) { return el('div', {}, [el('dt', {}, [label]), el('dd', {}, [value])]); }

  function checkItem(c, i) {
    var figs = [fig('Availability (24 h)', pct(c.availability24h))];
    if ('p95' in c) figs.push(fig('p95', ms(c.p95)));
    if ('p99' in c) figs.push(fig('p99', ms(c.p99)));
    var last = c.lastRun;
    var details = el('details', expand ? { open: '' } : {}, [
      el('summary', {}, ['Details']),
      el('dl', {}, [
        fig('Type', c.checkType || '\u2013'),
        fig('Last run', last ? last.at.replace('T', ' ').slice(0, 19) + ' UTC' : '\u2013'),
        fig('Location', last ? last.location : '\u2013'),
        fig('Response time', ms(last ? last.responseTime : null)),
      ]),
    ]);
    return el('li', { class: 'check', 'data-check': c.id, 'data-page': paginate ? String(Math.floor(i / per)) : null }, [
      el('h3', {}, [c.name]),
      el('p', { class: 'state s-' + c.state }, [el('span', { 'aria-hidden': 'true' }, [ICON[c.state] + ' ']), c.stateLabel]),
      el('dl', {}, figs),
      c.tags && c.tags.length ? el('ul', { class: 'tags', 'aria-label': 'Tags' }, c.tags.map(function (t) { return el('li', {}, [t]); })) : null,
      details,
      c.runHref ? el('p', {}, [el('a', { href: c.runHref }, ['Latest run', el('span', { class: 'sr' }, [' of ' + c.name])])]) : null,
    ]);
  }

  function incidentItem(i) {
    return el('li', { class: 'card' }, [
      el('h3', {}, [i.name]),
      el('p', { class: 'muted' }, ['Severity: ' + i.severity.toLowerCase() + ' \u00b7 ' + i.status.toLowerCase() + ' \u00b7 ', el('time', { datetime: i.at }, [i.at.replace('T', ' ').slice(0, 16) + ' UTC'])]),
      el('p', {}, [i.description]),
    ]);
  }

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

  function apply(data) {
    var list = document.getElementById('checks');
    if (list) list.replaceChildren.apply(list, data.checks.map(checkItem));
    var inc = document.getElementById('incidents');
    if (inc && data.incidents) {
      inc.replaceChildren.apply(inc, data.incidents.length ? data.incidents.map(incidentItem) : [el('li', { class: 'muted' }, ['No open incidents.'])]);
    }
    var updated = document.getElementById('updated');
    if (updated) { updated.setAttribute('datetime', data.generatedAt); updated.textContent = data.generatedAt.slice(11, 19) + ' UTC'; }
    show();
  }

  function refresh() {
    fetch(src, { cache: 'no-store', credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then(function (data) { body.removeAttribute('data-stale'); apply(data); body.setAttribute('data-refreshed', data.generatedAt); })
      .catch(function () { body.setAttribute('data-stale', ''); });
  }

  // WCAG 2.2.2: rotation and refresh can be paused.
  var paused = false;
  var pager = document.getElementById('pager');
  if (pager) {
    var button = el('button', { type: 'button', id: 'pause', 'aria-pressed': 'false' }, ['Pause updates']);
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
