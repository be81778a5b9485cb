// Where the group page's time goes when its first event is dragged: Chromium's sampling
// profiler (CDP `Profiler`, every 100 µs) over the budget check's kind of move (input → the
// lanes' next frame, a frame painted between moves), then the functions with the most time
// of their own and the most time under them. For function names, serve a build that keeps
// them: scripts/profile-group-page.sh does both. Prints the moves' median and p95 too
// (higher than the budget check's: the profiler costs time). Figures, not a check.
// Usage: node tests/e2e/profile.mjs BASE_URL [PRESET_TITLE] [--focus NAME]
//   PRESET_TITLE: a group-page preset chosen first (its sweep awaited), as in the budget
//   check's S-A section; --focus NAME: also the callers of the functions whose name has NAME.
import { chromium } from 'playwright-core';
import { CHROMIUM } from './chromium.mjs';

const args = process.argv.slice(2);
const focusAt = args.indexOf('--focus');
const focus = focusAt >= 0 ? args.splice(focusAt, 2)[1] : null;
const [BASE, preset] = args;
if (!BASE) throw new Error('usage: node tests/e2e/profile.mjs BASE_URL [PRESET_TITLE] [--focus NAME]');

const browser = await chromium.launch({ ...CHROMIUM, headless: true });
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
await page.goto(new URL('group/', BASE).href);
await page.waitForSelector('#lanes[data-frame]');
if (preset) {
  const before = await page.$eval('#lanes', (c) => Number(c.dataset.frame));
  await page.selectOption('#preset', { label: preset });
  await page.waitForFunction((n) => Number(document.querySelector('#lanes').dataset.frame) > n, before, { timeout: 180000 });
  await page.waitForFunction(() => document.querySelector('#g-worst')?.getAttribute('aria-busy') !== 'true', null, { timeout: 180000 });
}
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
await cdp.send('Profiler.start');
// A big group's move takes a tenth of a second or more: fewer of them.
const moves = preset ? 8 : 60;
const times = await page.evaluate(async (moves) => {
  const input = document.querySelector('#event-0-slider');
  const lanes = document.querySelector('#lanes');
  const from = Number(input.value);
  const out = [];
  for (let k = 1; k <= moves; k++) {
    const frame = lanes.dataset.frame;
    const t0 = performance.now();
    input.value = String(from + 250 * k);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    while (lanes.dataset.frame === frame && performance.now() - t0 < 60000) await new Promise((r) => setTimeout(r, 0));
    out.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  }
  return out;
}, moves);
const { profile } = await cdp.send('Profiler.stop');
await browser.close();

times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
console.log(`${moves} moves of the first event: median ${at(0.5)} ms, p95 ${at(0.95)} ms (profiled)`);

// Sampled time per node, then per function: its own, and under it (each function counted
// once per sample however deep it recurses).
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const sampled = new Map();
profile.samples.forEach((id, i) => sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const name = (id) => nodes.get(id).callFrame.functionName || `(anonymous ${nodes.get(id).callFrame.url.split('/').pop()})`;
const own = new Map();
const under = new Map();
const callers = new Map();
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
for (const [id, us] of sampled) {
  add(own, name(id), us);
  const seen = new Set();
  for (let n = id; n !== undefined; n = parent.get(n)) {
    if (!seen.has(name(n))) add(under, name(n), us);
    seen.add(name(n));
  }
  if (focus) {
    let n = id;
    while (n !== undefined && !name(n).includes(focus)) n = parent.get(n);
    const chain = [];
    for (let c = parent.get(n); n !== undefined && c !== undefined && chain.length < 4; c = parent.get(c)) chain.push(name(c).slice(0, 70));
    if (n !== undefined) add(callers, chain.join(' ← '), us);
  }
}
const table = (map, k) => [...map].sort((a, b) => b[1] - a[1]).slice(0, k)
  .map(([n, us]) => `${(us / 1000 / moves).toFixed(2).padStart(8)} ms a move  ${n.slice(0, 120)}`).join('\n');
console.log(`\nTime of their own:\n${table(own, 25)}\n\nTime under them:\n${table(under, 50)}`);
if (focus) console.log(`\nCallers of ${focus}:\n${table(callers, 10)}`);
