// End-to-end tests of the "your consumer" panel (issue 33) on the consumer and group pages,
// with real input: playwright-core drives Debian's Chromium. Usage: node tests/e2e/import.mjs BASE_URL
// The new-user trial: paste a Spring Boot application.yml, read the account and the worst
// case, apply it to the page. Screenshots of the panel go to tests/e2e/output/import-*.png
// (desktop 1280 × 800, phone 390 × 844, projector 1280 × 720).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from './runner.mjs';
import { watch } from './watch.mjs';

const BASE = process.argv[2] ?? process.env.BASE_URL;
if (!BASE) throw new Error('usage: node tests/e2e/import.mjs BASE_URL');
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'output');
fs.mkdirSync(OUT, { recursive: true });

const SPRING = `spring:
  kafka:
    bootstrap-servers: \${KAFKA_SERVERS:localhost:9092}
    consumer:
      group-id: invoices
      max-poll-records: 500
    listener:
      ack-mode: record
`;
const BAD = SPRING.replace('max-poll-records: 500', 'max-poll-records: lots');

const problems = [];
let moduleRequests = 0;
async function open(browser, url, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  watch(page, problems, BASE);
  page.on('request', (r) => {
    if (/offset-window-import-page/.test(r.url())) moduleRequests++;
  });
  await page.goto(url);
  return { page, context };
}

/** Presses the section's button and waits for the module's form. */
async function openPanel(page) {
  await page.waitForSelector('#import-open');
  await page.click('#import-open');
  await page.waitForSelector('#import-text');
  assert.equal(await page.isHidden('#import-open'), true, 'the button gives way to the panel');
}

async function paste(page, text) {
  await page.fill('#import-text', text);
  await page.click('#import-read');
}

const row = (page, key) => page.$eval(`#import-account tr[data-key="${key}"]`, (tr) => ({
  status: tr.dataset.status, property: tr.dataset.property, value: tr.dataset.value, text: tr.textContent,
}));

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('consumer page: a pasted Spring Boot application.yml is read, accounted for and applied', async (browser) => {
  const { page, context } = await open(browser, BASE);
  await page.waitForSelector('#main-chart canvas.overlay[data-frame]');
  const before = moduleRequests;
  assert.equal(before, 0, 'the import module is not fetched before the button is pressed');
  await openPanel(page);
  assert.ok(moduleRequests > before, 'the button fetches the import module');
  await paste(page, SPRING);
  await page.waitForSelector('#import-result');
  assert.equal(await page.getAttribute('#import-result', 'data-strategy'), 'commit_sync_record');
  assert.equal(await page.getAttribute('#import-result', 'data-client'), 'spring');
  const mpr = await row(page, 'max.poll.records');
  assert.deepEqual([mpr.status, mpr.value], ['applied', '500']);
  assert.match(mpr.property, /^spring\.kafka\.consumer\.max-poll-records/);
  const strategy = await row(page, 'strategy');
  assert.deepEqual([strategy.status, strategy.property, strategy.value], ['applied', 'spring.kafka.listener.ack-mode', 'commit_sync_record']);
  // Every property is there: the placeholder is not evaluated, the group id irrelevant.
  const statuses = await page.$$eval('#import-account tbody tr', (rows) => rows.map((r) => `${r.dataset.property}:${r.dataset.status}`));
  assert.ok(statuses.includes('spring.kafka.bootstrap-servers:not-evaluated') || statuses.some((s) => s.startsWith('spring.kafka.bootstrap-servers')), statuses.join(' '));
  assert.ok(statuses.some((s) => s.startsWith('spring.kafka.consumer.group-id')), statuses.join(' '));
  assert.ok((await page.textContent('#import-defaults')).includes('enable.auto.commit'), 'the defaults applied are listed');
  const worst = await page.$eval('#import-worst', (p) => ({ lost: Number(p.dataset.lost), duplicated: Number(p.dataset.duplicated), text: p.textContent }));
  assert.match(worst.text, /Over every crash instant: at worst \d+ lost/);
  await page.locator('#import').screenshot({ path: path.join(OUT, 'import-desktop-panel.png') });

  // Applied: the page shows the imported scenario, with the same worst case.
  await page.click('#import-apply');
  await page.waitForFunction(() => location.hash.includes('max.poll.records=500') && location.hash.includes('strategy=commit_sync_record'));
  await page.waitForFunction(() => document.querySelector('#f-max-poll-records')?.value === '500');
  await page.waitForFunction((d) => document.querySelector('#worst-duplicated')?.dataset.value === String(d), worst.duplicated);
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'applying shows the chart');
  await page.screenshot({ path: path.join(OUT, 'import-desktop-applied-1280x800.png') });
  // The panel keeps what it read.
  assert.equal(await page.getAttribute('#import-result', 'data-strategy'), 'commit_sync_record');
  await page.locator('#import').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(OUT, 'import-desktop-1280x800.png') });
  await context.close();
});

test('a bad value gives one error naming the line and the property; nonsense gives a message', async (browser) => {
  const { page, context } = await open(browser, BASE);
  await openPanel(page);
  await paste(page, BAD);
  await page.waitForSelector('#import-error');
  assert.equal(await page.locator('#import-out [role="alert"]').count(), 1);
  const e = await page.$eval('#import-error', (p) => ({ line: p.dataset.line, property: p.dataset.property, text: p.textContent }));
  assert.equal(e.line, '6');
  assert.equal(e.property, 'spring.kafka.consumer.max-poll-records (max.poll.records)');
  assert.match(e.text, /pasted\.yml, line 6: spring\.kafka\.consumer\.max-poll-records \(max\.poll\.records\): “lots”/);
  assert.equal(await page.$('#import-apply'), null, 'nothing to apply');
  await page.locator('#import').screenshot({ path: path.join(OUT, 'import-desktop-error.png') });
  for (const nonsense of ['spring:\n  kafka: [\n', '\u0000\u0001 binary', '   ', 'a=1\nb: 2\n']) {
    await paste(page, nonsense);
    const text = await page.textContent('#import-out');
    assert.ok(text.trim().length > 10, `a message for ${JSON.stringify(nonsense)}`);
  }
  assert.ok(await page.$('#main-chart canvas.overlay[data-frame]'), 'the page still runs');
  await context.close();
});

test('files chosen together: a describe output goes to the group page', async (browser) => {
  const { page, context } = await open(browser, BASE);
  await openPanel(page);
  const describe = fs.readFileSync(new URL('../../crates/import/tests/samples/consumer-groups-describe.txt', import.meta.url));
  const props = Buffer.from('enable.auto.commit=true\nauto.commit.interval.ms=1000\nmax.poll.records=500\n');
  await page.setInputFiles('#import-files', [
    { name: 'consumer.properties', mimeType: 'text/plain', buffer: props },
    { name: 'describe.txt', mimeType: 'text/plain', buffer: describe },
  ]);
  await page.waitForSelector('#import-result');
  assert.match(await page.textContent('#import-file-list'), /consumer\.properties, describe\.txt/);
  assert.equal(await page.getAttribute('#import-result', 'data-strategy'), 'auto_commit');
  const href = await page.getAttribute('#import-apply', 'href');
  assert.match(href, /^group\/#/);
  await page.click('#import-apply');
  await page.waitForSelector('#lanes[data-frame]');
  assert.ok(page.url().includes('/group/#'), page.url());
  await context.close();
});

test('group page: the panel loads the same module and links back to the consumer page', async (browser) => {
  const { page, context } = await open(browser, new URL('group/', BASE).href);
  await page.waitForSelector('#lanes[data-frame]');
  await openPanel(page);
  await paste(page, SPRING);
  await page.waitForSelector('#import-result');
  assert.match(await page.getAttribute('#import-apply', 'href'), /^\.\.\/#max\.poll\.records=500/);
  assert.equal(await page.textContent('#import-apply'), 'Open it on the consumer page');
  await page.locator('#import').screenshot({ path: path.join(OUT, 'import-group-panel.png') });
  // A group's files apply to this page: its state follows the link's fragment.
  const describe = fs.readFileSync(new URL('../../crates/import/tests/samples/consumer-groups-describe.txt', import.meta.url));
  await page.fill('#import-text', '');
  await page.setInputFiles('#import-files', [{ name: 'describe.txt', mimeType: 'text/plain', buffer: describe }]);
  await page.waitForFunction(() => document.querySelector('#import-apply')?.getAttribute('href').startsWith('#'));
  assert.match(await page.getAttribute('#import-apply', 'href'), /partitions=3/);
  assert.equal(await page.textContent('#import-apply'), 'Apply to this page');
  await page.click('#import-apply');
  await page.waitForFunction(() => document.querySelector('#f-partitions')?.value === '3' && document.querySelector('#f-members')?.value === '2');
  assert.ok(await page.$('#import-result'), 'the panel keeps what it read');
  await page.click('#import-clear');
  assert.equal(await page.isHidden('#import-file-list'), true, 'Clear removes the files');
  await paste(page, SPRING);
  await page.waitForFunction(() => document.querySelector('#import-apply')?.getAttribute('href').startsWith('../#'));
  await page.click('#import-apply');
  await page.waitForFunction(() => document.querySelector('#f-max-poll-records')?.value === '500');
  await context.close();
});

test('whose configuration and what was measured go in: percentiles become jitter', async (browser) => {
  const { page, context } = await open(browser, BASE);
  await openPanel(page);
  await page.fill('#import-text', 'enable.auto.commit=false\nmax.poll.records=100\n');
  await page.selectOption('#import-client', 'librdkafka');
  await page.click('#import-form details summary');
  await page.fill('#import-rate', '50');
  await page.fill('#import-p50', '10');
  await page.fill('#import-p99', '15');
  await page.click('#import-read');
  await page.waitForSelector('#import-out #import-result, #import-out #import-error');
  // librdkafka with auto-commit off commits in the application's own code: refused, with what to pass.
  const refused = await page.textContent('#import-out');
  assert.match(refused, /enable\.auto\.commit/, refused);
  await page.fill('#import-text', 'enable.auto.commit=true\nmax.poll.records=100\n');
  await page.click('#import-read');
  await page.waitForSelector('#import-result');
  assert.equal(await page.getAttribute('#import-result', 'data-client'), 'librdkafka');
  assert.equal((await row(page, 'record_processing_jitter_pct')).value, '52');
  assert.equal((await row(page, 'produce_rate_per_s')).value, '50');
  assert.match(await page.textContent('#import-notes'), /uniform jitter around 10 ms/);
  await context.close();
});

// Accessibility: axe-core (WCAG 2.2 A/AA) on the open panel with a result, light and dark.
const AXE = fs.readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
test('axe-core: no WCAG 2.2 A/AA violation in the open panel (light and dark)', async (browser) => {
  const found = [];
  for (const colorScheme of ['light', 'dark']) {
    const { page, context } = await open(browser, BASE, { colorScheme });
    await openPanel(page);
    await paste(page, SPRING);
    await page.waitForSelector('#import-result');
    await page.addScriptTag({ content: AXE });
    const result = await page.evaluate(() => axe.run('#import', {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    }));
    found.push(...result.violations.flatMap((v) => v.nodes.map((n) => `${colorScheme}: ${v.id} at ${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ')}`)));
    if (colorScheme === 'dark') await page.locator('#import').screenshot({ path: path.join(OUT, 'import-dark-panel.png') });
    await context.close();
  }
  assert.deepEqual(found, []);
});

test('screenshots: phone 390 × 844 and projector 1280 × 720', async (browser) => {
  const phone = await open(browser, BASE, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await openPanel(phone.page);
  await paste(phone.page, SPRING);
  await phone.page.waitForSelector('#import-result');
  const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `no sideways scrolling on a phone (${width} px)`);
  await phone.page.locator('#import-text').scrollIntoViewIfNeeded();
  await phone.page.screenshot({ path: path.join(OUT, 'import-phone-390x844.png') });
  await phone.page.locator('#import-result').scrollIntoViewIfNeeded();
  await phone.page.screenshot({ path: path.join(OUT, 'import-phone-result-390x844.png') });
  await phone.page.locator('#import').screenshot({ path: path.join(OUT, 'import-phone-panel.png') });
  await phone.context.close();
  const room = await open(browser, `${BASE}#projector=1`, { viewport: { width: 1280, height: 720 } });
  assert.ok(await room.page.waitForSelector('.page.consumer.projector'));
  await openPanel(room.page);
  await paste(room.page, SPRING);
  await room.page.waitForSelector('#import-result');
  await room.page.locator('#import').scrollIntoViewIfNeeded();
  await room.page.screenshot({ path: path.join(OUT, 'import-projector-1280x720.png') });
  await room.page.locator('#import').screenshot({ path: path.join(OUT, 'import-projector-panel.png') });
  await room.context.close();
});

await runTests(tests, problems, OUT);
