// The first frame's crash slider, until the page's wasm replaces it: the readouts, the
// crash field and both markers follow the slider, read from the step functions the core
// computed at build time (crates/view/src/first_frame.rs writes them into #ff-data). A
// crash at T reads the last step before T, as Run::state_at does. The instant goes into
// the URL, so the live page starts where the reader left the slider.
(() => {
  const d = JSON.parse(document.getElementById('ff-data').textContent);
  const slider = document.getElementById('ff-slider');
  // A link with other settings: the frame is not that page; leave the link alone.
  if (!slider || document.documentElement.classList.contains('ff-link')) return;
  d.now = d.default_crash;
  const at = (steps, t) => {
    let lo = 0, hi = steps.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (steps[m][0] < t) lo = m + 1; else hi = m; }
    return lo ? steps[lo - 1] : null;
  };
  const seconds = (us) => {
    const frac = String(us % 1e6).padStart(6, '0').replace(/0+$/, '');
    return `${Math.floor(us / 1e6)}.${frac.length <= 3 ? String(us % 1e6).padStart(6, '0').slice(0, 3) : frac}`;
  };
  const put = (id, v) => {
    const e = document.getElementById(id);
    const text = v === null ? 'none' : String(v);
    e.dataset.value = text;
    e.querySelector('.num').textContent = text;
  };
  const marker = (svg, values) => {
    const g = svg.querySelector('.ff-crash');
    const f = svg.dataset;
    const x = +f.left + (f.right - f.left) * (d.now / d.horizon);
    const y = (v) => f.bottom - (f.bottom - f.top) * (v / f.ymax);
    g.querySelector('line').setAttribute('x1', x);
    g.querySelector('line').setAttribute('x2', x);
    g.querySelector('polygon').setAttribute('transform', `translate(${x},0)`);
    g.querySelectorAll('g.dot').forEach((dot, i) => {
      const v = values[i];
      dot.style.display = v === null ? 'none' : '';
      if (v !== null) dot.setAttribute('transform', `translate(${x},${y(v)})`);
    });
  };
  const show = (us) => {
    d.now = us;
    const v = (steps) => { const s = at(steps, us); return s ? s[1] : null; };
    const position = v(d.position), durable = v(d.durable) ?? 0, committed = v(d.committed);
    const p = at(d.profile, us) ?? [0, 0, 0];
    put('ff-ro-position', position);
    put('ff-ro-durable', durable);
    put('ff-ro-committed', committed);
    put('ff-ro-lost', p[1]);
    put('ff-ro-duplicated', p[2]);
    put('ff-ro-reread', position !== null && committed !== null ? Math.max(0, position - committed) : 0);
    const s = seconds(us);
    document.getElementById('ff-crash-at').value = s;
    document.getElementById('ff-crash-shown').textContent = `Crash at ${s} s`;
    slider.value = us;
    slider.setAttribute('aria-valuetext', `${s} seconds`);
    document.querySelectorAll('svg.ff-main').forEach((svg) => marker(svg, [position, durable, committed]));
    document.querySelectorAll('svg.ff-profile').forEach((svg) => marker(svg, [p[2], p[1]]));
    // The link keeps what else it holds (projector=1); only the crash instant changes.
    const rest = location.hash.replace(/^#/, '').split('&').filter((p) => p && !p.startsWith('crash_at_us='));
    if (us !== d.default_crash) rest.push(`crash_at_us=${us}`);
    history.replaceState(null, '', rest.length ? `#${rest.join('&')}` : location.pathname + location.search);
  };
  const clamp = (us) => Math.min(d.horizon, Math.max(1, us));
  slider.addEventListener('input', () => show(clamp(Math.round(+slider.value / 1000) * 1000)));
  const target = (key) => {
    const step = d.key_step, now = d.now;
    const up = (n) => (Math.floor(now / step) + n) * step, down = (n) => Math.max(0, Math.ceil(now / step) - n) * step;
    return { ArrowRight: up(1), ArrowUp: up(1), ArrowLeft: down(1), ArrowDown: down(1),
      PageUp: up(10), PageDown: down(10), Home: 1, End: d.horizon }[key];
  };
  slider.addEventListener('keydown', (e) => {
    const to = target(e.key);
    if (to === undefined) return;
    e.preventDefault();
    show(clamp(to));
  });
  // − and +: a step either way, for a finger (as the live page's buttons).
  document.getElementById('ff-crash-earlier')?.addEventListener('click', () => show(clamp(target('ArrowLeft'))));
  document.getElementById('ff-crash-later')?.addEventListener('click', () => show(clamp(target('ArrowRight'))));
  const linked = /(^|[#&])crash_at_us=(\d+)(&|$)/.exec(location.hash);
  if (linked) show(clamp(+linked[2]));
})();
