// The benchmark report's page: one view at a time, tables that sort and
// filter, plots that show the value under the pointer, and the compare
// view of two stored runs. Every number comes from the page itself: the
// tables' cells, the plots' points and the compare data, all computed
// when the page was generated.
(function () {
  'use strict';

  const MISSING = '\u2014';

  // ---- Views -------------------------------------------------------

  const views = Array.from(document.querySelectorAll('section.view'));
  const navLinks = Array.from(document.querySelectorAll('nav.side a[data-view]'));

  // route splits the URL fragment into a view id and its parameters.
  function route() {
    const h = decodeURIComponent(location.hash.replace(/^#/, ''));
    const q = h.indexOf('?');
    const id = q < 0 ? h : h.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
    return { id, params };
  }

  function show() {
    let { id, params } = route();
    if (!views.some((v) => v.dataset.view === id)) {
      id = navLinks.length ? navLinks[0].dataset.view : views[0].dataset.view;
    }
    for (const v of views) v.hidden = v.dataset.view !== id;
    for (const a of navLinks) {
      if (a.dataset.view === id) {
        a.setAttribute('aria-current', 'page');
        const nav = a.closest('nav');
        if (a.offsetTop < nav.scrollTop || a.offsetTop + a.offsetHeight > nav.scrollTop + nav.clientHeight) {
          nav.scrollTop = a.offsetTop - nav.clientHeight / 2;
        }
      } else {
        a.removeAttribute('aria-current');
      }
    }
    if (id === 'compare') compare.open(params);
    window.scrollTo(0, 0);
  }

  // ---- Facets ------------------------------------------------------

  // selected holds, per facet, the values picked; an empty set is all.
  const selected = {};
  const facetBoxes = Array.from(document.querySelectorAll('details.facet'));
  const hostTitles = {};
  for (const d of facetBoxes) {
    selected[d.dataset.facet] = new Set();
  }
  for (const l of document.querySelectorAll('details.facet[data-facet="gpu"] label')) {
    hostTitles[l.querySelector('input').value] = l.textContent.trim();
  }

  function picked(facet, value) {
    const s = selected[facet];
    return !s || s.size === 0 || s.has(value);
  }

  function readFacets() {
    for (const d of facetBoxes) {
      const s = selected[d.dataset.facet];
      s.clear();
      for (const i of d.querySelectorAll('input:checked')) s.add(i.value);
      d.classList.toggle('active', s.size > 0);
      const label = d.querySelector('.sel');
      if (s.size === 0) label.textContent = 'all';
      else if (s.size === 1) label.textContent = d.dataset.facet === 'gpu' ? shortHost(hostTitles[[...s][0]]) : [...s][0];
      else label.textContent = s.size + ' picked';
    }
  }

  function shortHost(t) {
    return (t || '').replace(/^NVIDIA /, '').replace(/ \(no GPU\)$/, '');
  }

  // applyAll filters every table and plot of the page by the facets.
  function applyAll() {
    readFacets();
    for (const t of tables) t.apply();
    for (const p of plots) p.apply();
    for (const v of views) noteHidden(v);
  }

  // noteHidden says so in a view where the facets hide all its tables
  // and plots.
  function noteHidden(v) {
    const blocks = v.querySelectorAll('.tblock, figure.plot, figure.timeline');
    if (blocks.length === 0) return;
    let note = v.querySelector(':scope > p.hidden-note');
    const all = Array.from(blocks).every((b) => b.hidden);
    if (all && !note) {
      note = document.createElement('p');
      note.className = 'hidden-note';
      note.textContent = 'The filters above hide every table and plot of this view.';
      v.querySelector('h2').after(note);
    }
    if (note) note.hidden = !all;
  }

  // ---- Tables ------------------------------------------------------

  // sortKey reads a cell as a number where it starts with one: a size
  // ("4096x4096") by its pixels, "1.23 ±4%", "0.81×", "12%" by their
  // leading value. Anything else is text; a dash or "~" is missing.
  function sortKey(text) {
    const t = text.trim().replace('\u2212', '-');
    if (t === '' || t === MISSING || t === '~' || t === '-') return null;
    let m = /^(\d+)x(\d+)\b/.exec(t);
    if (m) return +m[1] * +m[2];
    m = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?/i.exec(t);
    if (m) return parseFloat(m[0]);
    return t;
  }

  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

  class Table {
    constructor(block) {
      this.block = block;
      this.host = block.dataset.host || '';
      this.table = block.querySelector('table.data');
      this.heads = Array.from(this.table.tHead.rows[0].cells);
      this.body = this.table.tBodies[0];
      this.rows = Array.from(this.body.rows);
      this.original = this.rows.slice();
      this.count = block.querySelector('.count');
      this.input = block.querySelector('input.rowfilter');
      this.query = '';
      this.facetCols = {};
      this.heads.forEach((th, c) => {
        const f = th.dataset.facet;
        if (f) (this.facetCols[f] = this.facetCols[f] || []).push(c);
        th.querySelector('button').addEventListener('click', () => this.sort(c));
      });
      this.variantCols = this.heads.map((th, c) => (th.dataset.variant ? c : -1)).filter((c) => c >= 0);
      // The columns that name a row align as text, the others as numbers.
      const keys = this.heads.map((th, c) => (th.classList.contains('key') ? c : -1)).filter((c) => c > 0);
      for (const r of this.rows) for (const c of keys) if (r.cells[c]) r.cells[c].classList.add('key');
      if (this.input) {
        this.input.addEventListener('input', () => {
          this.query = this.input.value.trim().toLowerCase();
          this.apply();
        });
      }
    }

    sort(c) {
      const th = this.heads[c];
      const dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
      for (const h of this.heads) h.setAttribute('aria-sort', 'none');
      th.setAttribute('aria-sort', dir);
      const keyed = this.original.map((r, i) => ({ r, i, k: sortKey(r.cells[c] ? r.cells[c].textContent : '') }));
      const nums = keyed.filter((x) => typeof x.k === 'number').length;
      const texts = keyed.filter((x) => typeof x.k === 'string').length;
      const numeric = nums > 0 && nums >= texts;
      for (const x of keyed) {
        if (numeric && typeof x.k !== 'number') x.k = null;
        if (!numeric && typeof x.k === 'number') x.k = x.r.cells[c].textContent.trim();
      }
      const sign = dir === 'ascending' ? 1 : -1;
      keyed.sort((a, b) => {
        if (a.k === null || b.k === null) {
          if (a.k === b.k) return a.i - b.i;
          return a.k === null ? 1 : -1; // missing last either way
        }
        const d = numeric ? a.k - b.k : collator.compare(a.k, b.k);
        return d !== 0 ? sign * d : a.i - b.i;
      });
      this.rows = keyed.map((x) => x.r);
      const frag = document.createDocumentFragment();
      for (const r of this.rows) frag.appendChild(r);
      this.body.appendChild(frag);
    }

    rowShown(r) {
      if (this.query && !r.textContent.toLowerCase().includes(this.query)) return false;
      for (const f in this.facetCols) {
        const s = selected[f];
        if (!s || s.size === 0) continue;
        const ok = this.facetCols[f].some((c) => {
          const cell = r.cells[c];
          if (!cell) return false;
          const v = cell.textContent.trim();
          if (f === 'gpu') return [...s].some((slug) => hostTitles[slug] === v);
          return s.has(v);
        });
        if (!ok) return false;
      }
      return true;
    }

    apply() {
      this.block.hidden = this.host !== '' && !picked('gpu', this.host);
      const hideCols = this.variantCols.filter((c) => !picked('variant', this.heads[c].dataset.variant));
      const hide = new Set(hideCols);
      this.heads.forEach((th, c) => { th.hidden = hide.has(c); });
      let n = 0;
      for (const r of this.original) {
        const shown = this.rowShown(r);
        r.hidden = !shown;
        if (shown) n++;
        if (this.variantCols.length) {
          for (const c of this.variantCols) if (r.cells[c]) r.cells[c].hidden = hide.has(c);
        }
      }
      if (this.count) {
        const total = this.original.length;
        let text = n === total ? total + ' rows' : n + ' of ' + total + ' rows';
        if (hideCols.length) text += ', ' + hideCols.length + ' variant columns hidden';
        this.count.textContent = text;
      }
    }
  }

  const tables = [];
  function addTable(block) {
    const t = new Table(block);
    tables.push(t);
    t.apply();
    return t;
  }

  // ---- Plots -------------------------------------------------------

  const tip = document.getElementById('tip');

  class Plot {
    constructor(fig) {
      this.fig = fig;
      this.host = fig.dataset.host || '';
      this.svg = fig.querySelector('svg.chart');
      this.series = Array.from(this.svg.querySelectorAll('g.s'));
      this.items = Array.from(fig.querySelectorAll('ul.plegend li'));
      this.points = Array.from(this.svg.querySelectorAll('g.s circle')).map((c) => ({
        c, g: c.parentNode, x: +c.getAttribute('cx'), y: +c.getAttribute('cy'),
      }));
      this.hot = null;
      for (const li of this.items) {
        const btn = li.querySelector('button');
        const g = this.series[+btn.dataset.s];
        btn.addEventListener('click', () => {
          const on = btn.getAttribute('aria-pressed') !== 'true';
          btn.setAttribute('aria-pressed', String(on));
          g.classList.toggle('off', !on);
        });
        btn.addEventListener('mouseenter', () => this.highlight(g));
        btn.addEventListener('mouseleave', () => this.highlight(null));
      }
      this.svg.addEventListener('mousemove', (e) => this.hover(e));
      this.svg.addEventListener('mouseleave', () => this.leave());
    }

    highlight(g) {
      for (const s of this.series) s.classList.toggle('dim', g !== null && s !== g);
    }

    hover(e) {
      const m = this.svg.getScreenCTM();
      if (!m) return;
      const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
      let best = null;
      let bestD = 14 * 14;
      for (const p of this.points) {
        if (p.g.classList.contains('off') || p.g.classList.contains('hid')) continue;
        const d = (p.x - pt.x) ** 2 + (p.y - pt.y) ** 2;
        if (d < bestD) { best = p; bestD = d; }
      }
      if (this.hot && (!best || this.hot !== best.c)) this.hot.classList.remove('hot');
      if (!best) { tip.hidden = true; this.hot = null; return; }
      this.hot = best.c;
      best.c.classList.add('hot');
      tip.textContent = this.tipText(best.c);
      tip.hidden = false;
      const w = tip.offsetWidth;
      const h = tip.offsetHeight;
      let x = e.clientX + 14;
      let y = e.clientY + 14;
      if (x + w > window.innerWidth - 4) x = e.clientX - w - 14;
      if (y + h > window.innerHeight - 4) y = e.clientY - h - 14;
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    }

    // tipText is what the pointer shows of a point: its series, its x
    // and its value, with the point's own label where it has one.
    tipText(c) {
      const item = this.items[+c.parentNode.dataset.s];
      const lines = [item ? item.textContent.trim() : '',
        this.svg.dataset.xlabel + ': ' + c.dataset.x,
        this.svg.dataset.ylabel + ': ' + c.dataset.y];
      if (c.dataset.l) lines.push(c.dataset.l);
      return lines.join('\n');
    }

    leave() {
      tip.hidden = true;
      if (this.hot) this.hot.classList.remove('hot');
      this.hot = null;
    }

    apply() {
      this.fig.hidden = this.host !== '' && !picked('gpu', this.host);
      this.series.forEach((g, i) => {
        const hid = (g.dataset.host && !picked('gpu', g.dataset.host)) || (g.dataset.variant && !picked('variant', g.dataset.variant));
        g.classList.toggle('hid', Boolean(hid));
        if (this.items[i]) this.items[i].classList.toggle('hid', Boolean(hid));
      });
    }
  }

  const plots = Array.from(document.querySelectorAll('figure.plot')).map((f) => new Plot(f));

  // ---- Compare -----------------------------------------------------

  // sig formats v with n significant digits, as the report's tables do.
  function sig(v, n) {
    if (v === 0) return '0';
    const dec = Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(v))));
    return v.toFixed(dec);
  }

  function ms(ns) {
    return ns === null || !(ns > 0) ? MISSING : sig(ns / 1e6, 3);
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const compare = (function () {
    const node = document.getElementById('compare-data');
    const D = node ? JSON.parse(node.textContent) : { runs: [], pairs: [], keys: [], dict: [], units: [] };
    const selA = document.getElementById('cmp-a');
    const selB = document.getElementById('cmp-b');
    const pairs = new Map();
    for (const p of D.pairs) pairs.set(p.a + ',' + p.b, p.cases);
    const facets = new Set(['variant', 'filter', 'k', 'type', 'timing', 'size']);
    let table = null;

    function label(r) {
      return r.preset + (r.commit ? ' at ' + r.commit : '');
    }
    for (const sel of [selA, selB]) {
      if (!sel) continue;
      let group = null;
      D.runs.forEach((r, i) => {
        if (!group || group.label !== r.host) {
          group = el('optgroup', { label: r.host });
          sel.appendChild(group);
        }
        group.appendChild(el('option', { value: String(i) }, label(r) + ' \u00b7 ' + shortHost(r.host)));
      });
    }

    // fallback picks two runs with cases in common: the same preset on
    // two hosts where there is one.
    function fallback() {
      let p = D.pairs[0];
      for (const x of D.pairs) {
        if (D.runs[x.a].preset === D.runs[x.b].preset && D.runs[x.a].slug !== D.runs[x.b].slug &&
            (p === D.pairs[0] || x.cases.length > p.cases.length)) p = x;
      }
      return p ? [p.a, p.b] : [0, Math.min(1, D.runs.length - 1)];
    }

    function indexOf(id) {
      return D.runs.findIndex((r) => r.id === id);
    }

    function open(params) {
      if (!selA || D.runs.length === 0) return;
      let a = indexOf(params.get('a') || '');
      let b = indexOf(params.get('b') || '');
      if (a < 0 && b < 0) [a, b] = fallback();
      else if (b < 0) {
        const p = D.pairs.find((x) => x.a === a || x.b === a);
        b = p ? (p.a === a ? p.b : p.a) : a;
      } else if (a < 0) {
        const p = D.pairs.find((x) => x.a === b || x.b === b);
        a = p ? (p.a === b ? p.b : p.a) : b;
      }
      selA.value = String(a);
      selB.value = String(b);
      render(a, b);
    }

    function runCard(r, name) {
      const d = el('div');
      d.appendChild(el('h3', {}, name + ': ' + r.preset + ' on ' + r.host));
      const dl = el('dl', { class: 'run' });
      const add = (k, v, code) => {
        if (!v) return;
        dl.appendChild(el('dt', {}, k));
        const dd = el('dd');
        dd.appendChild(code ? el('code', { class: 'cmd' }, v) : document.createTextNode(v));
        dl.appendChild(dd);
      };
      add('File', r.file, true);
      add('Commit', r.commit || MISSING);
      add('Command', r.command, true);
      add('Cases', String(r.cases.length));
      d.appendChild(dl);
      return d;
    }

    function render(a, b) {
      const ra = D.runs[a];
      const rb = D.runs[b];
      const runs = document.getElementById('cmp-runs');
      runs.replaceChildren(runCard(ra, 'A'), runCard(rb, 'B'));
      const summary = document.getElementById('cmp-summary');
      const box = document.getElementById('cmp-table');
      if (table) {
        tables.splice(tables.indexOf(table), 1);
        table = null;
      }
      box.replaceChildren();
      const hash = '#compare?a=' + encodeURIComponent(ra.id) + '&b=' + encodeURIComponent(rb.id);
      if (location.hash !== hash) history.replaceState(null, '', hash);
      if (a === b) {
        summary.textContent = 'A and B are the same run: pick two different runs.';
        return;
      }
      let rows = pairs.get(Math.min(a, b) + ',' + Math.max(a, b));
      if (!rows) {
        summary.textContent = 'A and B have no case in common.';
        return;
      }
      if (a > b) rows = rows.map((x) => [x[1], x[0], x[2]]);
      const cases = rows.map(([ia, ib, p]) => ({ A: ra.cases[ia], B: rb.cases[ib], p }));
      // Rows in the order of their keys' values, as the report's tables list cases.
      cases.sort((x, y) => {
        for (let ki = 0; ki < D.keys.length; ki++) {
          const d = collator.compare(D.dict[x.A[0][ki]], D.dict[y.A[0][ki]]);
          if (d !== 0) return d;
        }
        return 0;
      });
      const keys = D.keys.filter((k, ki) => cases.some((c) => c.A[0][ki] !== cases[0].A[0][ki]));
      if (keys.length === 0) keys.push('variant');
      const common = D.keys
        .map((k, ki) => [k, D.dict[cases[0].A[0][ki]]])
        .filter(([k, v]) => !keys.includes(k) && v !== 'none' && v !== 'default');
      const units = new Set(cases.map((c) => c.A[1]));

      let faster = 0;
      let slower = 0;
      let same = 0;
      let logSum = 0;
      let logN = 0;
      const lvl = Math.round(D.confidence * 100) + '% CI (ms)';
      const header = keys.concat(units.size > 1 ? ['unit'] : [], ['A (ms)', 'A ' + lvl, 'B (ms)', 'B ' + lvl, 'B / A', 'change', 'p', 'runs A+B']);
      const body = el('tbody');
      for (const c of cases) {
        const tr = el('tr');
        for (const k of keys) tr.appendChild(el('td', {}, D.dict[c.A[0][D.keys.indexOf(k)]]));
        if (units.size > 1) tr.appendChild(el('td', {}, D.units[c.A[1]]));
        const [ma, lo1, hi1] = [c.A[3], c.A[4], c.A[5]];
        const [mb, lo2, hi2] = [c.B[3], c.B[4], c.B[5]];
        tr.appendChild(el('td', {}, ms(ma)));
        tr.appendChild(el('td', {}, lo1 === null ? MISSING : ms(lo1) + ' \u2013 ' + ms(hi1)));
        tr.appendChild(el('td', {}, ms(mb)));
        tr.appendChild(el('td', {}, lo2 === null ? MISSING : ms(lo2) + ' \u2013 ' + ms(hi2)));
        let ratio = MISSING;
        let change = MISSING;
        let cls = '';
        if (ma > 0 && mb > 0) {
          const r = mb / ma;
          ratio = sig(r, 3) + '\u00d7';
          logSum += Math.log(r);
          logN++;
          if (c.p <= D.alpha) {
            const pct = (r - 1) * 100;
            change = (pct >= 0 ? '+' : '') + pct.toFixed(2) + '%';
            if (r < 1) { faster++; cls = 'faster'; } else if (r > 1) { slower++; cls = 'slower'; } else same++;
          } else {
            change = '~';
            same++;
          }
        }
        tr.appendChild(el('td', {}, ratio));
        tr.appendChild(el('td', cls ? { class: cls } : {}, change));
        tr.appendChild(el('td', {}, c.p.toFixed(3)));
        tr.appendChild(el('td', {}, c.A[2] + '+' + c.B[2]));
        body.appendChild(tr);
      }
      const onlyA = ra.cases.length - cases.length;
      const onlyB = rb.cases.length - cases.length;
      let s = cases.length + ' cases in both runs';
      if (onlyA || onlyB) s += ' (' + onlyA + ' only in A, ' + onlyB + ' only in B)';
      s += ': B is faster on ' + faster + ', slower on ' + slower + ', and not significantly different on ' + same + '.';
      if (logN) s += ' Geometric mean of B / A: ' + sig(Math.exp(logSum / logN), 3) + '\u00d7.';
      summary.textContent = s;

      const block = el('div', { class: 'tblock', id: 't-compare' });
      block.appendChild(el('h3', {}, 'B against A, case by case'));
      if (common.length) {
        block.appendChild(el('p', { class: 'caption' }, 'Every case has ' + common.map(([k, v]) => k + '=' + v).join(', ') + '.'));
      }
      const tools = el('div', { class: 'ttools' });
      tools.appendChild(el('input', { type: 'search', class: 'rowfilter', placeholder: 'Filter rows', 'aria-label': 'Filter the rows of the comparison' }));
      tools.appendChild(el('span', { class: 'count', 'aria-live': 'polite' }));
      block.appendChild(tools);
      const scroll = el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'B against A' });
      const t = el('table', { class: 'data' });
      const thead = el('thead');
      const hr = el('tr');
      header.forEach((h, i) => {
        const th = el('th', { scope: 'col', 'aria-sort': 'none' });
        if (i < keys.length) {
          th.className = 'key';
          if (facets.has(h)) th.dataset.facet = h;
        }
        th.appendChild(el('button', { type: 'button', title: 'Sort by this column' }, h));
        hr.appendChild(th);
      });
      thead.appendChild(hr);
      t.appendChild(thead);
      t.appendChild(body);
      scroll.appendChild(t);
      block.appendChild(scroll);
      box.appendChild(block);
      readFacets();
      table = addTable(block);
    }

    function picked2() {
      render(+selA.value, +selB.value);
    }
    if (selA) {
      selA.addEventListener('change', picked2);
      selB.addEventListener('change', picked2);
      document.getElementById('cmp-swap').addEventListener('click', () => {
        const a = selA.value;
        selA.value = selB.value;
        selB.value = a;
        picked2();
      });
    }
    return { open };
  })();

  // ---- Start -------------------------------------------------------

  for (const b of document.querySelectorAll('main .tblock')) addTable(b);
  for (const d of facetBoxes) {
    d.addEventListener('change', applyAll);
  }
  // One facet menu open at a time; a click elsewhere closes it.
  document.addEventListener('click', (e) => {
    for (const d of facetBoxes) if (!d.contains(e.target)) d.open = false;
  });
  document.getElementById('clear-facets').addEventListener('click', () => {
    for (const i of document.querySelectorAll('details.facet input:checked')) i.checked = false;
    applyAll();
  });
  window.addEventListener('hashchange', show);
  applyAll();
  show();
  document.documentElement.dataset.ready = 'true';
})();
