// The page column of the README's "Groups at scale" table (issue 28): each row's scenario
// opened by its link on the group page (desktop 1440 × 900, DPR 1, a fresh page each), and
// printed: from navigation to its lanes drawn, to the background sweep of its first event
// done (a row with events), and the page's wasm memory then — its peak, since a wasm
// memory never shrinks (the sweep's Web Workers have memories of their own, not counted).
// A scenario the page refuses prints its notice. Figures, not a pass/fail check: the
// machine's load moves them.
// Usage: node tests/e2e/scale.mjs BASE_URL
import { chromium } from 'playwright-core';
import { CHROMIUM } from './chromium.mjs';

const BASE = process.argv[2];
if (!BASE) throw new Error('usage: node tests/e2e/scale.mjs BASE_URL');

const deploy = (atMs, stepMs, restartMs) => [{ at_ms: atMs, kind: 'deploy', deploy_step_ms: stepMs, restart_after_ms: restartMs }];
// The README's rows: members, partitions, horizon, the group events (none: []).
const ROWS = [
  ['16 × 64 × 60 s, none', 16, 64, 60000, []],
  ['16 × 64 × 3600 s, none', 16, 64, 3600000, []],
  ['16 × 64 × 600 s, one crash', 16, 64, 600000, [{ at_ms: 8200, member: 2, kind: 'crash' }]],
  ['16 × 64 × 600 s, rolling deploy', 16, 64, 600000, [{ at_ms: 10000, kind: 'deploy' }]],
  ['S-A: 128 × 1024 × 600 s, rolling deploy', 128, 1024, 600000, deploy(10000, 4000, 2000)],
  ['S-B: 256 × 4096 × 600 s, rolling deploy', 256, 4096, 600000, deploy(60000, 2000, 5000)],
  ['S-C: 64 × 1024 × 86,400 s, none', 64, 1024, 86400000, []],
];

// The group page's link for a row: only the keys that differ from its defaults (reference
// G1: 2 members, 2 partitions, 60 s, a crash) need writing, and a row sets all four.
const link = ([, members, partitions, horizonMs, events]) =>
  `group/#members=${members}&partitions=${partitions}&horizon_ms=${horizonMs}&group_events=${encodeURIComponent(JSON.stringify(events))}`;

const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

const browser = await chromium.launch({ ...CHROMIUM, headless: true });
console.log('Groups at scale on the page (desktop 1440 × 900; wasm memory = the page module\'s peak):');
for (const row of ROWS) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  // Trunk's loader hands the instance's exports to this event; the memory is the one export
  // that is a WebAssembly.Memory (scripts/finish-wasm.mjs renames the exports).
  await page.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => {
    window.__wasmMemory = Object.values(e.detail.wasm).find((v) => v instanceof WebAssembly.Memory);
  }));
  const t0 = Date.now();
  await page.goto(new URL(link(row), BASE).href);
  // The lanes of this row (not the defaults'): as many lanes as the overview or lanes draw.
  const drawn = await page.waitForFunction(() => {
    const notice = document.querySelector('#notices p');
    if (notice) return { notice: notice.textContent.trim() };
    const lanes = document.querySelector('#lanes[data-frame]');
    return lanes && Number(lanes.dataset.lanes) > 2 && { lanes: Number(lanes.dataset.lanes) };
  }, null, { timeout: 240000, polling: 50 }).then((h) => h.jsonValue());
  const lanesMs = Date.now() - t0;
  if (drawn.notice) {
    console.log(`  ${row[0]}: refused — ${drawn.notice}`);
    await context.close();
    continue;
  }
  let swept = '';
  if (row[4].length > 0) {
    await page.waitForSelector('#g-worst', { timeout: 240000 });
    await page.waitForFunction(() => document.querySelector('#g-worst').getAttribute('aria-busy') !== 'true', null, { timeout: 240000 });
    swept = `, the sweep done ${secs(Date.now() - t0)}`;
  }
  const memory = await page.evaluate(() => window.__wasmMemory?.buffer.byteLength ?? 0);
  console.log(`  ${row[0]}: lanes drawn ${secs(lanesMs)}${swept}; wasm memory ${mib(memory)}`);
  await context.close();
}
await browser.close();
