// End-to-end tests of the transactions page (transactions/, docs/model.md §13) with real
// input: playwright-core drives Debian's Chromium. Each preset's readouts at the horizon are
// checked against `offset-window transactions FILE` (the CLI, built by scripts/test-web.sh).
// Usage: node tests/e2e/transactions.mjs BASE_URL
// Screenshots go to tests/e2e/output/transactions-*.png (gitignored).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from './runner.mjs';
import { watch } from './watch.mjs';

const BASE = process.argv[2] ?? process.env.BASE_URL;
if (!BASE) throw new Error('usage: node tests/e2e/transactions.mjs BASE_URL');
const URL_TXN = new URL('transactions/', BASE).href;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '../..');
const OUT = path.join(HERE, 'output');
fs.mkdirSync(OUT, { recursive: true });
const CLI = process.env.OFFSET_WINDOW_CLI ?? path.join(ROOT, 'target/debug/offset-window');

// The presets in the page's order (crates/view/src/transactions/presets.rs).
const PRESETS = [
  'txn-committed-batch-lag-per-client.json',
  'txn-producer-killed-stalls-until-timeout.json',
  'txn-aborted-never-handed-to-read-committed.json',
  'txn-open-transaction-holds-back-another.json',
  'txn-hanging-transaction.json',
];

const problems = [];
async function open(browser, options = {}, hash = '') {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
  const page = await context.newPage();
  watch(page, problems, BASE);
  await page.goto(URL_TXN + hash);
  await page.waitForSelector('#txn-chart canvas[data-x-end-us]');
  return { page, context };
}

/** Seconds as the page writes them: three decimals, more when the instant needs them. */
function seconds(ms) {
  const us = Math.round(ms * 1000);
  const frac = String(us % 1_000_000).padStart(6, '0').replace(/0+$/, '');
  return `${Math.floor(us / 1_000_000)}.${frac.length <= 3 ? String(us % 1_000_000).padStart(6, '0').slice(0, 3) : frac}`;
}

const readers = (page) => page.$$eval('#readers tbody tr', (rows) => rows.map((r) => ({
  name: r.dataset.name, handed: r.dataset.handed, aborted: r.dataset.aborted,
  committed: r.dataset.committed, lag: r.dataset.lag, stall: r.dataset.stall,
})));
const value = (page, id) => page.$eval(`#${id}`, (e) => Number(e.dataset.value));

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('mounts at transactions/ and links back to the consumer and producer pages', async (browser) => {
  const { page, context } = await open(browser);
  assert.equal(await page.getAttribute('a:text("the producer view")', 'href'), '../producer/');
  await page.click('text=the consumer view');
  await page.waitForSelector('#ro-position');
  assert.equal(page.url(), BASE);
  // The consumer and producer pages link here.
  await page.click('a:text("transactions in the log")');
  await page.waitForSelector('#txn-chart canvas[data-x-end-us]');
  await page.goto(new URL('producer/', BASE).href);
  await page.waitForSelector('#producer-axis canvas[data-targets]');
  await page.click('a:text("transactions in the log")');
  await page.waitForSelector('#txn-chart canvas[data-x-end-us]');
  assert.equal(page.url(), URL_TXN);
  await context.close();
});

test('each preset\'s readouts at the horizon equal `offset-window transactions` on its file', async (browser) => {
  const { page, context } = await open(browser);
  for (const [i, file] of PRESETS.entries()) {
    await page.selectOption('#preset', String(i));
    await page.waitForFunction((f) => document.body.textContent.includes(`scenarios/${f}`), file);
    const run = JSON.parse(execFileSync(CLI, ['transactions', path.join(ROOT, 'scenarios', file)], { encoding: 'utf8' }));
    assert.equal(await value(page, 'ro-hw'), run.log_end_offset, file);
    assert.equal(await value(page, 'ro-lso'), run.last_stable_offset.at(-1).offset, file);
    const want = run.readers.map((r) => ({
      name: r.name,
      handed: String(r.handed.length),
      aborted: r['isolation.level'] === 'read_committed' ? '-'
        : String(r.handed.filter((h) => !h.control && run.log[h.offset].state === 'aborted').length),
      committed: r.committed === null ? 'none' : String(r.committed),
      lag: r.lag === null ? 'none' : String(r.lag),
      stall: r.stalled.length === 0 ? 'none' : r.stalled.map((s) => (s.to_ms === null
        ? `since ${seconds(s.from_ms)} s` : `${seconds(s.from_ms)}–${seconds(s.to_ms)} s`)).join(', '),
    }));
    assert.deepEqual(await readers(page), want, file);
    if (i > 0) await page.waitForFunction((slug) => location.hash.includes(`preset=${slug}`), ['lag-per-client', 'killed-producer', 'aborted', 'two-producers', 'hanging'][i]);
  }
  await context.close();
});

test('the instant: keyboard on the slider, the exact seconds field, a click on the chart; the link keeps it', async (browser) => {
  const { page, context } = await open(browser, {}, '#preset=killed-producer');
  // At 10 s tx-a is open: the LSO holds at 1, read_committed is stalled with LAG 5.
  await page.fill('#at-seconds', '10');
  await page.waitForFunction(() => document.querySelector('#ro-lso').dataset.value === '1');
  assert.equal(await value(page, 'ro-hw'), 6);
  let [rc, ru] = await readers(page);
  assert.deepEqual([rc.committed, rc.lag, rc.stall], ['1', '5', 'since 1.000 s']);
  assert.deepEqual([ru.handed, ru.aborted, ru.lag], ['6', '3', '0']);
  await page.waitForFunction(() => location.hash.includes('at=10'));
  await page.reload();
  await page.waitForSelector('#txn-chart canvas[data-x-end-us]');
  assert.equal(await page.inputValue('#at-seconds'), '10');
  // The keyboard: End is the horizon, where the abort at 20 s has released the reader.
  await page.focus('#at');
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('#ro-lso').dataset.value === '7');
  [rc] = await readers(page);
  assert.deepEqual([rc.lag, rc.stall], ['0', '1.000–20.000 s']);
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('#ro-hw').dataset.value === '0');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#at-shown'), /^0\.\d+ s$/);
  assert.notEqual(await page.textContent('#at-shown'), '0.000 s');
  // A click on the chart reads that instant.
  const canvas = page.locator('#txn-chart canvas');
  const box = await canvas.boundingBox();
  await page.mouse.click(box.x + box.width * 0.9, box.y + box.height / 2);
  await page.waitForFunction(() => parseFloat(document.querySelector('#at-seconds').value) > 20);
  assert.equal(await value(page, 'ro-lso'), 7);
  // A bad instant is named under the field; the readouts stay.
  await page.fill('#at-seconds', '99');
  await page.waitForSelector('#txn-at .field-error');
  assert.match(await page.textContent('#txn-at .field-error'), /0 to 30 s/);
  await context.close();
});

test('refused values are named under their field with the allowed range; the page keeps working', async (browser) => {
  const { page, context } = await open(browser, {}, '#preset=killed-producer');
  const key = 'transaction-abort-timed-out-transaction-cleanup-interval-ms';
  await page.fill(`#${key}`, '0');
  const error = await page.waitForSelector(`#${key}-error`);
  assert.match(await error.textContent(), /transaction\.abort\.timed\.out\.transaction\.cleanup\.interval\.ms.*1 to 2147483647/);
  assert.equal(await value(page, 'ro-lso'), 7, 'the run shown is still the last accepted one');
  // Accepted: a scan every 2 s aborts tx-a at 12 s (after 1 s + 10 s).
  await page.fill(`#${key}`, '2000');
  await page.waitForSelector(`#${key}-error`, { state: 'detached' });
  await page.fill('#at-seconds', '11.9');
  await page.waitForFunction(() => document.querySelector('#ro-lso').dataset.value === '1');
  await page.fill('#at-seconds', '12');
  await page.waitForFunction(() => document.querySelector('#ro-lso').dataset.value === '7');
  // The producer's transaction.timeout.ms, and a commit style a client has not.
  await page.fill('#producers-0--transaction-timeout-ms', '1000000');
  assert.match(await (await page.waitForSelector('#producers-0--transaction-timeout-ms-error')).textContent(), /transaction\.max\.timeout\.ms/);
  await page.selectOption('#preset', '0');
  await page.selectOption('#readers-10--commit', 'position');
  assert.match(await (await page.waitForSelector('#readers-10--commit-error')).textContent(), /kafka_go/);
  await page.selectOption('#readers-1--isolation-level', 'read_uncommitted');
  await page.waitForFunction(() => document.querySelector('#reader-1').dataset.aborted === '0');
  await context.close();
});

test('a bad link names its keys and keeps a working page', async (browser) => {
  const { page, context } = await open(browser, {}, '#preset=nope&horizon_ms=-5&readers=x');
  const notice = await page.textContent('#notices');
  assert.match(notice, /preset=nope/);
  assert.match(notice, /horizon_ms/);
  assert.match(notice, /readers/);
  // The first preset, whole.
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios', PRESETS[0]), 'utf8'));
  assert.equal((await readers(page)).length, file.scenario.readers.length);
  await context.close();
});

test('Tab reaches every control with a visible focus ring', async (browser) => {
  const { page, context } = await open(browser, {}, '#preset=two-producers');
  const want = await page.$$eval('.page input, .page select, .page button, .page summary', (es) => es.map((e) => e.id || e.textContent.trim().slice(0, 30)));
  const seen = new Map();
  // Tab until every control has had the focus (links come between them), at most 120 presses.
  for (let k = 0; k < 120 && !want.every((id) => seen.has(id)); k++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const e = document.activeElement;
      const css = getComputedStyle(e);
      return { id: e.id || e.textContent.trim().slice(0, 30), ring: css.outlineStyle !== 'none' && parseFloat(css.outlineWidth) >= 2 };
    });
    seen.set(f.id, f.ring);
  }
  for (const id of want) {
    assert.ok(seen.has(id), `Tab reaches ${id}`);
    assert.ok(seen.get(id), `${id} shows a focus ring`);
  }
  await context.close();
});

async function noSmallText(page) {
  return page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => {
    const visible = e.offsetParent !== null || getComputedStyle(e).position === 'fixed';
    const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    return visible && text && parseFloat(getComputedStyle(e).fontSize) < 12;
  }).map((e) => `${e.tagName}.${e.className}: ${e.textContent.trim().slice(0, 40)}`));
}

test('phone 390×844: no sideways scrolling, no text under 12 px, the readers as cards', async (browser) => {
  const { page, context } = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }, '#preset=killed-producer&at=10');
  assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= 390), 'no sideways scrolling at 390 px');
  assert.deepEqual(await noSmallText(page), []);
  await page.screenshot({ path: path.join(OUT, 'transactions-phone-390x844.png') });
  await page.screenshot({ path: path.join(OUT, 'transactions-phone-full.png'), fullPage: true });
  await context.close();
});

test('projector 1920×1080: the chart, the instant and the readers on one screen', async (browser) => {
  const { page, context } = await open(browser, { viewport: { width: 1920, height: 1080 } }, '#preset=killed-producer&at=10&projector=1');
  await page.waitForSelector('.page.txn.projector .screen #txn-chart canvas');
  await page.screenshot({ path: path.join(OUT, 'transactions-projector-1920x1080.png') });
  const inside = await page.evaluate(() => ['#txn-chart canvas', '#at', '#ro-lso', '#readers']
    .map((s) => document.querySelector(`.screen ${s}`).getBoundingClientRect())
    .every((r) => r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5 && r.height > 0));
  assert.ok(inside, 'the screen holds the chart, the slider and the readouts');
  // The first preset's twelve readers fit the screen's side too.
  await page.selectOption('#preset', '0');
  await page.waitForFunction(() => document.querySelectorAll('.screen #readers tbody tr').length > 10);
  await page.screenshot({ path: path.join(OUT, 'transactions-projector-lag-per-client-1920x1080.png') });
  const last = await page.evaluate(() => {
    const side = document.querySelector('.screen-side').getBoundingClientRect();
    const row = [...document.querySelectorAll('.screen #readers tbody tr')].at(-1).getBoundingClientRect();
    return row.bottom <= side.bottom + 0.5;
  });
  assert.ok(last, 'every reader on the projector screen');
  await page.click('#projector');
  await page.waitForSelector('.page.txn:not(.projector)');
  await page.waitForFunction(() => !location.hash.includes('projector=1'));
  await context.close();
});

const AXE = fs.readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(() => axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
  }));
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ')}`));
}

test('axe-core: no WCAG 2.2 A/AA violation (desktop, a refused value, dark, phone, projector, embed)', async (browser) => {
  const layouts = [
    ['desktop, a refused value and a bad link', {}, '#preset=aborted&horizon_ms=-5', async (page) => {
      await page.fill('#transaction-abort-timed-out-transaction-cleanup-interval-ms', '0');
      await page.waitForSelector('.field-error');
      await page.click('.txn-words details summary');
    }],
    ['dark', { colorScheme: 'dark' }, '#preset=killed-producer', null],
    ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, '', null],
    ['projector', { viewport: { width: 1920, height: 1080 } }, '#projector=1', null],
  ];
  const found = [];
  for (const [name, options, hash, prepare] of layouts) {
    const { page, context } = await open(browser, options, hash);
    if (prepare) await prepare(page);
    found.push(...(await axeViolations(page)).map((v) => `${name}: ${v}`));
    await context.close();
  }
  const embed = await browser.newContext({ viewport: { width: 640, height: 480 } });
  const page = await embed.newPage();
  watch(page, problems, BASE);
  await page.goto(`${URL_TXN}?embed=1#preset=two-producers`);
  await page.waitForSelector('.page.txn.embed #txn-chart canvas[data-x-end-us]');
  found.push(...(await axeViolations(page)).map((v) => `embed: ${v}`));
  await embed.close();
  assert.deepEqual(found, []);
});

test('screenshots: desktop 1440×900 (each preset), dark', async (browser) => {
  const { page, context } = await open(browser);
  await page.screenshot({ path: path.join(OUT, 'transactions-desktop-1440x900.png') });
  await page.screenshot({ path: path.join(OUT, 'transactions-desktop-full.png'), fullPage: true });
  for (const [i, file] of PRESETS.entries()) {
    await page.selectOption('#preset', String(i));
    await page.waitForFunction((f) => document.body.textContent.includes(`scenarios/${f}`), file);
    await page.locator('#txn-chart').screenshot({ path: path.join(OUT, `transactions-chart-${file.replace('.json', '')}.png`) });
  }
  await context.close();
  const dark = await open(browser, { colorScheme: 'dark' }, '#preset=killed-producer&at=10');
  await dark.page.screenshot({ path: path.join(OUT, 'transactions-dark-1440x900.png') });
  await dark.context.close();
});

runTests(tests, problems, OUT);
