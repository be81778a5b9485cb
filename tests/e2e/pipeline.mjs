// End-to-end tests of the pipeline page (pipeline/, docs/model.md §14) with real input:
// playwright-core drives Debian's Chromium. Each preset's readouts are checked against
// `offset-window pipeline FILE` (the CLI, built by scripts/test-web.sh).
// Usage: node tests/e2e/pipeline.mjs BASE_URL
// Screenshots go to tests/e2e/output/pipeline-*.png (gitignored).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from './runner.mjs';
import { watch } from './watch.mjs';

const BASE = process.argv[2] ?? process.env.BASE_URL;
if (!BASE) throw new Error('usage: node tests/e2e/pipeline.mjs BASE_URL');
const URL_PIPE = new URL('pipeline/', BASE).href;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '../..');
const OUT = path.join(HERE, 'output');
fs.mkdirSync(OUT, { recursive: true });
const CLI = process.env.OFFSET_WINDOW_CLI ?? path.join(ROOT, 'target/debug/offset-window');

// The presets in the page's order (crates/view/src/pipeline/presets.rs).
const PRESETS = [
  ['killed-restarts', 'eos-ctp-killed-mid-transaction-restarts.json'],
  ['killed-never-restarts', 'eos-ctp-killed-never-restarts.json'],
  ['pending-offsets', 'eos-ctp-killed-between-offsets-and-commit.json'],
  ['zombie', 'eos-ctp-zombie-refused-by-generation.json'],
  ['streams-at-least-once', 'eos-streams-at-least-once-kill.json'],
  ['streams-exactly-once', 'eos-streams-exactly-once-kill.json'],
  ['scale-out', 'eos-ctp-scale-out-join.json'],
  ['rolling-deploy', 'eos-ctp-rolling-deploy.json'],
  ['streams-rolling-deploy', 'eos-streams-rolling-deploy.json'],
];

const problems = [];
async function open(browser, options = {}, hash = '') {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
  const page = await context.newPage();
  watch(page, problems, BASE);
  await page.goto(URL_PIPE + hash);
  await page.waitForSelector('#pipe-chart canvas[data-crash-us]');
  return { page, context };
}

const downstream = (page) => page.$$eval('#downstream tbody tr', (rows) => rows.map((r) => ({
  name: r.dataset.name, isolation: r.dataset.isolation,
  seen: { once: Number(r.dataset.once), twice: Number(r.dataset.twice), more: Number(r.dataset.more), never: Number(r.dataset.never) },
})));
const value = (page, id) => page.$eval(`#${id}`, (e) => Number(e.dataset.value));
const cli = (file) => JSON.parse(execFileSync(CLI, ['pipeline', path.join(ROOT, 'scenarios', file)], { encoding: 'utf8' }));

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('mounts at pipeline/ and links to and from the transactions and producer pages', async (browser) => {
  const { page, context } = await open(browser);
  assert.equal(await page.getAttribute('.views a:text("the producer view")', 'href'), '../producer/');
  // The first preset's story is the producer half: the producer page is linked beside it.
  assert.equal(await page.getAttribute('#producer-link a', 'href'), '../producer/');
  await page.click('.views a:text("transactions in the log")');
  await page.waitForSelector('#txn-chart canvas[data-x-end-us]');
  await page.click('a:text("exactly-once pipelines")');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us]');
  assert.equal(page.url(), URL_PIPE);
  await page.goto(new URL('producer/', BASE).href);
  await page.waitForSelector('#producer-axis canvas[data-targets]');
  await page.click('a:text("exactly-once pipelines")');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us]');
  assert.equal(page.url(), URL_PIPE);
  await context.close();
});

test('each preset\'s readouts equal `offset-window pipeline` on its file (presets fetched on use)', async (browser) => {
  const { page, context } = await open(browser);
  let fetched = 0;
  page.on('request', (r) => { if (r.url().endsWith('/presets.json')) fetched++; });
  assert.equal(await page.$$eval('#preset option', (o) => o.length), PRESETS.length, 'the page\'s presets are this test\'s');
  for (const [i, [slug, file]] of PRESETS.entries()) {
    await page.selectOption('#preset', String(i));
    await page.waitForFunction((f) => document.body.textContent.includes(`scenarios/${f}`), file);
    const run = cli(file);
    const want = run.readers.map((r) => ({ name: r.name, isolation: r['isolation.level'], seen: r.seen }));
    if (run.side_effects) want.push({ name: 'side effect', isolation: 'outside Kafka', seen: run.side_effects.counts });
    assert.deepEqual(await downstream(page), want, file);
    assert.equal(await value(page, 'ro-lso'), run.output_last_stable_offset.at(-1).offset, file);
    assert.equal(await value(page, 'ro-aborted'), run.output_log.filter((e) => e.state === 'aborted').length, file);
    assert.equal(await value(page, 'ro-abort-markers'), run.output_log.filter((e) => e.kind === 'abort_marker').length, file);
    assert.equal(await value(page, 'ro-timed-out'), run.timed_out_aborts.length, file);
    assert.equal(await value(page, 'ro-input-committed'), run.input_committed.reduce((n, c) => n + (c.last ?? 0), 0), file);
    const stalls = run.input_stalls.flatMap((p) => p.stalls);
    assert.equal(await page.$$eval('#input-stalls li', (l) => l.length), Math.max(stalls.length, 1), file);
    const crash = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios', file), 'utf8')).scenario.events[0].at_ms;
    assert.equal(await page.getAttribute('#pipe-chart canvas', 'data-crash-us'), String(crash * 1000), file);
    if (i > 0) await page.waitForFunction((s) => location.hash.includes(`preset=${s}`), slug);
  }
  assert.equal(fetched, 1, 'presets.json is fetched once, on the first preset the page does not carry');
  await context.close();
});

test('a link naming a preset the page does not carry fetches it and opens it', async (browser) => {
  const { page, context } = await open(browser, {}, '#preset=pending-offsets');
  await page.waitForFunction(() => document.body.textContent.includes('scenarios/eos-ctp-killed-between-offsets-and-commit.json'));
  assert.match(await page.textContent('#input-stalls'), /UNSTABLE_OFFSET_COMMIT from 48\.000 s to 70\.000 s/);
  await context.close();
});

test('the crash: keyboard on the slider, the exact seconds field, a click on the chart; the link keeps it', async (browser) => {
  const { page, context } = await open(browser);
  await page.fill('#crash-seconds', '2');
  await page.waitForFunction(() => document.querySelector('#down-1').dataset.twice === '9');
  assert.equal(await page.textContent('#crash-shown'), '2.000 s');
  assert.equal((await downstream(page))[0].seen.once, 100, 'read_committed: every record once');
  await page.waitForFunction(() => location.hash.includes('crash=2'));
  await page.reload();
  await page.waitForSelector('#pipe-chart canvas[data-crash-us="2000000"]');
  assert.equal(await page.inputValue('#crash-seconds'), '2');
  // The keyboard: one step right (500 ms over 80 s), Home, End.
  await page.focus('#crash');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us="2500000"]');
  await page.keyboard.press('Home');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us="0"]');
  assert.equal((await downstream(page))[1].seen.twice, 0, 'killed at 0 s: nothing was processed yet');
  await page.keyboard.press('End');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us="80000000"]');
  // A click on the chart moves the crash there.
  const canvas = page.locator('#pipe-chart canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height / 2);
  await page.waitForFunction(() => Number(document.querySelector('#pipe-chart canvas').dataset.crashUs) < 80000000);
  // A bad instant is named under the field; the run stays.
  await page.fill('#crash-seconds', '99');
  await page.waitForSelector('#crash-error');
  assert.match(await page.textContent('#crash-error'), /0 to 80 s/);
  await context.close();
});

test('refused values are named under their field with the allowed range; the editable fields', async (browser) => {
  const { page, context } = await open(browser);
  const key = 'service-commit-interval-ms';
  await page.fill(`#${key}`, '0');
  assert.match(await (await page.waitForSelector(`#${key}-error`)).textContent(), /service\.commit\.interval\.ms.*1 to 86400000/);
  assert.equal((await downstream(page))[1].seen.twice, 4, 'the run shown is still the last accepted one');
  await page.fill(`#${key}`, '70000');
  assert.match(await (await page.waitForSelector(`#${key}-error`)).textContent(), /transaction\.timeout\.ms/);
  await page.fill(`#${key}`, '1000');
  await page.waitForSelector(`#${key}-error`, { state: 'detached' });
  await page.fill('#service-transaction-timeout-ms', '900001');
  assert.match(await (await page.waitForSelector('#service-transaction-timeout-ms-error')).textContent(), /900000/);
  await page.fill('#service-transaction-timeout-ms', '60000');
  // No restart: the transaction waits for the timeout abort; no side effect: its row goes.
  await page.fill('#events-0--restart-after-ms', '');
  await page.waitForFunction(() => document.querySelector('#ro-timed-out').dataset.value === '1');
  await page.uncheck('#service-side-effect');
  await page.waitForFunction(() => document.querySelectorAll('#downstream tbody tr').length === 2);
  // at_least_once: no transaction timeout field, and read_committed sees duplicates.
  await page.selectOption('#service-processing-guarantee', 'at_least_once');
  await page.waitForSelector('#service-transaction-timeout-ms', { state: 'detached' });
  assert.ok((await downstream(page))[0].seen.twice > 0);
  await page.selectOption('#service-kind', 'kafka_streams');
  await page.waitForFunction(() => document.querySelector('#service-kind').value === 'kafka_streams');
  assert.equal(await page.$$eval('.field-error', (e) => e.length), 0);
  await context.close();
});

test('a bad link names its keys and keeps a working page; a crash past the horizon is clamped', async (browser) => {
  let { page, context } = await open(browser, {}, '#preset=nope&horizon_ms=-5&service=x');
  const notice = await page.textContent('#notices');
  assert.match(notice, /preset=nope/);
  assert.match(notice, /horizon_ms/);
  assert.match(notice, /service/);
  assert.equal((await downstream(page)).length, 3);
  await context.close();
  ({ page, context } = await open(browser, {}, '#crash=500'));
  assert.match(await page.textContent('#notices'), /crash=500 is outside 0 to 80 s/);
  assert.equal(await page.textContent('#crash-shown'), '80.000 s');
  await context.close();
});

test('P7, a scale-out: the slider moves the join, the rebalance in words, the numbers of the CLI; screenshots', async (browser) => {
  const file = 'eos-ctp-scale-out-join.json';
  const run = cli(file);
  const layouts = [
    ['desktop-1440x900', { viewport: { width: 1440, height: 900 } }, ''],
    ['phone-390x844', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }, ''],
    ['projector-1280x720', { viewport: { width: 1280, height: 720 } }, '&projector=1'],
  ];
  for (const [name, options, extra] of layouts) {
    const { page, context } = await open(browser, options, `#preset=scale-out${extra}`);
    await page.waitForFunction((f) => document.body.textContent.includes(`scenarios/${f}`), file);
    await page.waitForSelector('#pipe-chart canvas[data-crash-us="1050000"]');
    const want = run.readers.map((r) => ({ name: r.name, isolation: r['isolation.level'], seen: r.seen }));
    assert.deepEqual(await downstream(page), want, name);
    assert.equal(await page.textContent('label[for=crash]'), 'The join: 1.050 s', name);
    assert.equal(await page.$('#events-0--restart-after-ms'), null, 'no restart field for a join');
    const r = run.rebalances[0];
    assert.match(await page.textContent('#rebalances'), new RegExp(`^${(r.started_at_ms / 1000).toFixed(3)} s to ${(r.completed_at_ms / 1000).toFixed(3)} s`));
    assert.match(await page.textContent('#rebalances'), /partition 0 → instance 0, partition 1 → instance 1/);
    // The key to the chart is on the first screen: under the chart, beside it on the projector.
    const key = await page.locator(`${extra ? '.screen ' : ''}#pipe-key`).boundingBox();
    assert.ok(key && key.height > 0, `${name}: the key is shown`);
    if (extra) {
      assert.ok(key.y + key.height <= 720.5, `${name}: the key is on the projector screen`);
      // Each isolation level on one line.
      const fit = await page.$$eval('.screen #downstream tbody th', (ths) => ths.map((t) => {
        const range = document.createRange();
        range.selectNodeContents(t);
        return range.getClientRects().length === 1 && t.scrollWidth <= t.clientWidth + 0.5;
      }));
      assert.ok(fit.every(Boolean), `${name}: each reader's isolation level on one line, inside its cell (${fit})`);
    }
    await page.screenshot({ path: path.join(OUT, `pipeline-p7-${name}.png`) });
    await context.close();
  }
  // Moving the join moves the rebalance; nothing repeats.
  const { page, context } = await open(browser, {}, '#preset=scale-out');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us="1050000"]');
  await page.fill('#crash-seconds', '1.5');
  await page.waitForSelector('#pipe-chart canvas[data-crash-us="1500000"]');
  assert.match(await page.textContent('#rebalances'), /^1\.500 s to 1\.500 s/);
  assert.deepEqual((await downstream(page)).map((d) => d.seen.once), [40, 40]);
  await page.waitForFunction(() => location.hash.includes('crash=1.5'));
  await context.close();
});

test('Tab reaches every control with a visible focus ring', async (browser) => {
  const { page, context } = await open(browser);
  const want = await page.$$eval('.page input, .page select, .page button, .page summary', (es) => es.map((e) => e.id || e.textContent.trim().slice(0, 30)));
  const seen = new Map();
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

const smallest = (page, within) => page.evaluate((within) => {
  const small = [...document.querySelectorAll(`${within} *`)].filter((e) => {
    const visible = e.offsetParent !== null;
    return visible && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  }).map((e) => [parseFloat(getComputedStyle(e).fontSize), `${e.tagName}.${e.className}: ${e.textContent.trim().slice(0, 40)}`]);
  small.sort((a, b) => a[0] - b[0]);
  return small[0] ?? [Infinity, ''];
}, within);

test('phone 390×844: no sideways scrolling, no text under 12 px', async (browser) => {
  const { page, context } = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= 390), 'no sideways scrolling at 390 px');
  const [px, what] = await smallest(page, '.page');
  assert.ok(px >= 12, `text under 12 px: ${px} px, ${what}`);
  await page.screenshot({ path: path.join(OUT, 'pipeline-phone-390x844.png') });
  await page.screenshot({ path: path.join(OUT, 'pipeline-phone-full.png'), fullPage: true });
  await context.close();
});

test('projector 1280×720: the chart, the crash and downstream on one screen, no text under 16 px', async (browser) => {
  const { page, context } = await open(browser, { viewport: { width: 1280, height: 720 } }, '#projector=1');
  await page.waitForSelector('.page.pipe.projector .screen #pipe-chart canvas');
  await page.screenshot({ path: path.join(OUT, 'pipeline-projector-1280x720.png') });
  const inside = await page.evaluate(() => ['#pipe-chart canvas', '#crash', '#downstream']
    .map((s) => document.querySelector(`.screen ${s}`).getBoundingClientRect())
    .every((r) => r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5 && r.height > 0));
  assert.ok(inside, 'the screen holds the chart, the slider and the downstream table');
  const [px, what] = await smallest(page, '.screen');
  assert.ok(px >= 16, `text under 16 px on the projector screen: ${px} px, ${what}`);
  await page.click('#projector');
  await page.waitForSelector('.page.pipe:not(.projector)');
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
    ['desktop, a refused value and a bad link', {}, '#horizon_ms=-5', async (page) => {
      await page.fill('#service-commit-interval-ms', '0');
      await page.waitForSelector('.field-error');
      await page.click('.pipe-words details summary');
    }],
    ['dark', { colorScheme: 'dark' }, '', null],
    ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, '', null],
    ['projector', { viewport: { width: 1280, height: 720 } }, '#projector=1', null],
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
  await page.goto(`${URL_PIPE}?embed=1`);
  await page.waitForSelector('.page.pipe.embed #pipe-chart canvas[data-crash-us]');
  found.push(...(await axeViolations(page)).map((v) => `embed: ${v}`));
  await embed.close();
  assert.deepEqual(found, []);
});

test('screenshots: desktop 1440×900 (each preset), dark', async (browser) => {
  const { page, context } = await open(browser);
  await page.screenshot({ path: path.join(OUT, 'pipeline-desktop-1440x900.png') });
  await page.screenshot({ path: path.join(OUT, 'pipeline-desktop-full.png'), fullPage: true });
  for (const [i, [, file]] of PRESETS.entries()) {
    await page.selectOption('#preset', String(i));
    await page.waitForFunction((f) => document.body.textContent.includes(`scenarios/${f}`), file);
    await page.locator('#pipe-chart').screenshot({ path: path.join(OUT, `pipeline-chart-${file.replace('.json', '')}.png`) });
  }
  await context.close();
  const dark = await open(browser, { colorScheme: 'dark' });
  await dark.page.screenshot({ path: path.join(OUT, 'pipeline-dark-1440x900.png') });
  await dark.context.close();
});

runTests(tests, problems, OUT);
