// End-to-end tests of the group page (group/, docs/model.md §10 and §11) with real input:
// playwright-core drives Debian's Chromium. Usage: node tests/e2e/group.mjs BASE_URL
// Screenshots go to tests/e2e/output/group-*.png (gitignored).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { runTests } from './runner.mjs';
import { watch } from './watch.mjs';

const BASE = process.argv[2] ?? process.env.BASE_URL;
if (!BASE) throw new Error('usage: node tests/e2e/group.mjs BASE_URL');
const URL_GROUP = new URL('group/', BASE).href;
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'output');
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The CLI the readouts are checked against (scripts/test-web.sh builds it).
const CLI = process.env.OFFSET_WINDOW_CLI ?? path.join(ROOT, 'target/debug/offset-window');
fs.mkdirSync(OUT, { recursive: true });

const problems = [];
async function open(browser, options = {}, hash = '') {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
  const page = await context.newPage();
  watch(page, problems, BASE);
  await page.goto(URL_GROUP + hash);
  await page.waitForSelector('#lanes[data-frame]');
  return { page, context };
}

const value = (page, id) => page.$eval(`#${id}`, (e) => Number(e.dataset.value));

/** Page coordinates of event `index`'s handle on the lanes. */
async function handleAt(page, index) {
  const canvas = page.locator('#lanes');
  const box = await canvas.boundingBox();
  const targets = await canvas.getAttribute('data-targets');
  const hit = targets.split(';').map((t) => t.split(/[:,]/)).find(([name]) => name === String(index));
  assert.ok(hit, `event ${index} among ${targets}`);
  return { x: box.x + Number(hit[1]), y: box.y + Number(hit[2]) };
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('the consumer page links to group/, which opens on reference G1', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watch(page, problems, BASE);
  await page.goto(BASE);
  await page.click('a[href="group/"]');
  await page.waitForSelector('#lanes[data-frame]');
  assert.equal(page.url(), URL_GROUP);
  // docs/model.md §10.7, G1: orders-1 repeats 15 records, one rebalance, nothing lost.
  assert.equal(await value(page, 'ro-g-duplicated'), 15);
  assert.equal(await value(page, 'ro-g-lost'), 0);
  assert.equal(await value(page, 'ro-g-rebalances'), 1);
  await context.close();
});

test('dragging the crash on the lanes with the mouse changes the readouts and the link', async (browser) => {
  const { page, context } = await open(browser);
  const { x, y } = await handleAt(page, 0);
  await page.mouse.move(x, y);
  await page.mouse.down();
  // To about 1.8 s later (G1's 60 s over the lanes' width): past the auto-commit at 10 s.
  const width = (await page.locator('#lanes').boundingBox()).width;
  for (let k = 1; k <= 6; k++) await page.mouse.move(x + (k * 0.03 * (width - 98)) / 6, y);
  await page.mouse.up();
  // Wait for the drop to settle: the field and the link name the same instant (a loaded
  // machine may still be applying an earlier move when the field first changes).
  await page.waitForFunction(() => {
    const s = document.querySelector('#event-0-at-ms').value;
    const ms = Math.round(Number(s) * 1e6) / 1e3; // the field says seconds, the link ms
    return s !== '8.2' && new RegExp(`"at_ms":${ms}[,}]`).test(decodeURIComponent(location.hash));
  });
  const at = Number(await page.inputValue('#event-0-at-ms'));
  assert.ok(at > 9 && at < 11, `moved to ${at} s`);
  assert.notEqual(await value(page, 'ro-g-duplicated'), 15, 'a changed readout');
  // The link reproduces it.
  await page.reload();
  await page.waitForSelector('#lanes[data-frame]');
  assert.equal(Number(await page.inputValue('#event-0-at-ms')), at);
  await context.close();
});

test('a finger drags the crash sideways too (touch)', async (browser) => {
  const { page, context } = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await page.locator('#lanes').scrollIntoViewIfNeeded();
  const { x, y } = await handleAt(page, 0);
  const cdp = await context.newCDPSession(page);
  const touch = (type, px) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: px, y }] });
  await touch('touchStart', x);
  for (let k = 1; k <= 8; k++) await touch('touchMove', x - 6 * k);
  await touch('touchEnd', x - 48);
  await page.waitForFunction(() => document.querySelector('#event-0-at-ms').value !== '8.2');
  assert.ok(Number(await page.inputValue('#event-0-at-ms')) < 8.2);
  assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= 390), 'no sideways scrolling at 390 px');
  await context.close();
});

test('keyboard: the event slider moves by 0.1 s per arrow key', async (browser) => {
  const { page, context } = await open(browser);
  await page.focus('#event-0-slider');
  for (let k = 0; k < 18; k++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#event-0-at-ms').value === '10');
  // At 10.000 s the auto-commit sent at 10 s has not landed: 24 repeated.
  assert.equal(await value(page, 'ro-g-duplicated'), 24);
  await context.close();
});

test('presets: each one meets its scenario file; the share group shows its strip', async (browser) => {
  const { page, context } = await open(browser);
  const options = await page.$$eval('#preset option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(options.length >= 20, `${options.length} presets`);
  for (const v of options) {
    await page.selectOption('#preset', v);
    await page.waitForSelector('#preset-checks li');
    const bad = await page.$$eval('#preset-checks li.bad', (ls) => ls.map((l) => l.textContent));
    assert.deepEqual(bad, [], `preset ${v}`);
  }
  await page.selectOption('#preset', { label: 'Share group: a member is killed' });
  await page.waitForSelector('#strip[width]');
  assert.match(await page.textContent('#strip-words'), /acquired by consumer-/);
  assert.equal(await page.locator('#versus-table tbody tr').count(), 2);
  await context.close();
});

test('a bad link names the field and its range; the page still works', async (browser) => {
  const { page, context } = await open(browser, {}, '#partitions=0&members=abc&crash_at_us=-1');
  const notices = await page.textContent('#notices');
  assert.match(notices, /partitions of orders: must be a whole number from 1 to 4096/);
  assert.match(notices, /members/);
  assert.match(notices, /crash_at_us/);
  assert.equal(await value(page, 'ro-g-duplicated'), 15);
  await context.close();
});

const active = (page) => page.evaluate(() => document.activeElement?.id);

test('the tour: four steps with the keyboard, each loading its case; Finish closes it and keeps the last case', async (browser) => {
  const { page, context } = await open(browser);
  await page.focus('#tour-start');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#tour-next');
  const captions = [await page.textContent('#tour-caption')];
  await page.focus('#tour-next');
  for (let i = 2; i <= 4; i++) {
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelector('.gtour h2')?.textContent.includes(`step ${n} of`), i);
    captions.push(await page.textContent('#tour-caption'));
  }
  assert.equal(new Set(captions).size, 4);
  // The last step has no Next, disabled or not: Finish takes its place and the focus.
  assert.equal(await page.$('#tour-next'), null);
  assert.equal(await active(page), 'tour-finish', 'Next gives way to Finish: the focus moves there');
  // The last step is a share group: its readouts are there, and stay after Finish.
  const preset = await page.inputValue('#preset');
  assert.ok(await page.$('#ro-s-redelivered'));
  await page.keyboard.press('Enter');
  await page.waitForSelector('#tour-start');
  assert.equal(await page.$('#tour'), null, 'the tour is closed');
  assert.ok(await page.$('#ro-s-redelivered'), 'the last step\'s share group stays');
  assert.equal(await page.inputValue('#preset'), preset, 'and its preset');
  assert.equal(await active(page), 'tour-start', 'the focus goes to the tour button');
  await context.close();
});

test('the tour\'s step is in the link: a reload opens the tour at that step, with its case', async (browser) => {
  const { page, context } = await open(browser);
  await page.click('#tour-start');
  await page.click('#tour-next');
  await page.waitForFunction(() => document.querySelector('#tour')?.dataset.step === '2');
  await page.waitForFunction(() => /(^#|&)tour=2(&|$)/.test(location.hash));
  const [caption, preset] = [await page.textContent('#tour-caption'), await page.inputValue('#preset')];
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#tour')?.dataset.step === '2');
  assert.equal(await page.textContent('#tour-caption'), caption);
  assert.equal(await page.inputValue('#preset'), preset);
  await page.click('#tour-leave');
  await page.waitForFunction(() => !location.hash.includes('tour='));
  await context.close();
});

test('a share group takes its own tour, about its strip; Escape leaves it and keeps the case', async (browser) => {
  const { page, context } = await open(browser);
  await page.selectOption('#preset', { label: 'S3: three share consumers on one partition' });
  await page.waitForSelector('#strip[width]');
  assert.match(await page.textContent('.lede'), /share group/);
  assert.doesNotMatch(await page.textContent('.lede'), /committed offset/);
  await page.click('#tour-start');
  await page.waitForSelector('#tour-caption');
  const steps = [];
  for (;;) {
    steps.push(await page.textContent('#tour-caption'));
    assert.ok(await page.$('#strip'), `step ${steps.length}: a share group with its strip`);
    if (!(await page.$('#tour-next'))) break;
    await page.click('#tour-next');
    await page.waitForFunction((n) => document.querySelector('#tour')?.dataset.step === String(n), steps.length + 1);
  }
  assert.ok(steps.length >= 3, `${steps.length} steps`);
  assert.match(steps[0], /strip/);
  assert.ok(steps.every((c) => !/committed offset/.test(c)), 'no consumer-group words');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#tour-start');
  assert.ok(await page.$('#strip'), 'still the share group');
  await context.close();
});

test('share group: the readouts say what a crash then would cost, apart from the whole run the table counts', async (browser) => {
  const { page, context } = await open(browser);
  await page.selectOption('#preset', { label: 'Share group: a member is killed' });
  await page.waitForSelector('#strip[width]');
  await page.fill('#crash-at', '3.05');
  await page.waitForFunction(() => document.querySelector('#s-ro-title').textContent.includes('3.050'));
  assert.equal(await page.textContent('#s-ro-title'), 'If the whole share group crashed at 3.050 s');
  assert.match(await page.textContent('#s-run-title'), /^In the whole run \(\d+(\.\d+)? s\), with no crash of the whole group$/);
  assert.equal(await page.getAttribute('#ro-s-duplicated', 'data-value') !== null, true);
  const under = (id) => page.$eval(`#${id}`, (e) => document.getElementById(e.parentElement.getAttribute('aria-labelledby')).id);
  assert.equal(await under('ro-s-duplicated'), 's-ro-title');
  assert.equal(await under('ro-s-redelivered'), 's-run-title');
  assert.match(await page.textContent('#versus-table caption'), /whole run.*no crash of the whole group/);
  assert.match(await page.textContent('#versus-table thead'), /processed twice in the whole run/);
  await context.close();
});

test('the sweep chart: a mouse click, a finger tap or an arrow key puts the first event at that instant', async (browser) => {
  const { page, context } = await open(browser);
  const sweep = page.locator('#sweep');
  await sweep.scrollIntoViewIfNeeded();
  const box = await sweep.boundingBox();
  const [left, right] = (await sweep.getAttribute('data-axis')).split(',').map(Number);
  const msPerPx = 60000 / (right - left); // G1's horizon
  const x = box.x + left + (right - left) * 0.5;
  await page.mouse.click(x, box.y + box.height / 3);
  await page.waitForFunction(() => document.querySelector('#event-0-at-ms').value !== '8.2');
  const at = Math.round(Number(await page.inputValue('#event-0-at-ms')) * 1e6) / 1e3; // ms
  assert.ok(Math.abs(at - 30000) <= msPerPx, `clicked at 30 s, the event is at ${at} ms`);
  // The same as dragging it there on the lanes: its handle is at the same x.
  await page.waitForFunction(() => /"at_ms":\d+/.test(decodeURIComponent(location.hash)));
  const handle = await handleAt(page, 0);
  assert.ok(Math.abs(handle.x - x) <= 1.5, `the lanes' handle at ${handle.x}, clicked at ${x}`);
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), new RegExp(`"at_ms":${at}[,}]`));
  // The keyboard: the chart is a slider.
  await sweep.focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((v) => document.querySelector('#event-0-at-ms').value === String(v), (at - 100) / 1000);
  assert.match(await sweep.getAttribute('aria-valuetext'), /^the first event at \d+\.\d+ s: \d+ lost, \d+ processed twice$/);
  await context.close();
  // A finger: a tap moves it; a swipe up the page scrolls and leaves it.
  const phone = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const s2 = phone.page.locator('#sweep');
  await s2.scrollIntoViewIfNeeded();
  const b2 = await s2.boundingBox();
  const [l2, r2] = (await s2.getAttribute('data-axis')).split(',').map(Number);
  await phone.page.touchscreen.tap(b2.x + l2 + (r2 - l2) * 0.25, b2.y + b2.height / 3);
  await phone.page.waitForFunction(() => document.querySelector('#event-0-at-ms').value !== '8.2');
  const tapped = Number(await phone.page.inputValue('#event-0-at-ms')) * 1000;
  assert.ok(Math.abs(tapped - 15000) <= 60000 / (r2 - l2), `tapped at 15 s, the event is at ${tapped} ms`);
  await phone.context.close();
});

test('projector mode at 1280×720 and 1920×1080: tour caption, lanes, the event\'s control and the totals on one screen, canvases scaled', async (browser) => {
  for (const [w, h, minScale] of [[1280, 720, 1.5], [1920, 1080, 2.2]]) {
    for (const kind of ['consumer', 'share']) {
      const { page, context } = await open(browser, { viewport: { width: w, height: h } }, '#projector=1');
      if (kind === 'share') {
        await page.selectOption('#preset', { label: 'Share group: a member is killed' });
        await page.waitForSelector('#strip[width]');
      }
      await page.click('#tour-start');
      await page.waitForSelector('.page.group.projector .screen #tour-caption');
      await page.evaluate(() => window.scrollTo(0, 0));
      const ids = kind === 'consumer'
        ? ['tour-caption', 'tour-next', 'lanes', 'screen-event-slider', 'screen-event-at-ms', 'ro-g-lost', 'ro-g-duplicated', 'ro-g-rebalances', 'ro-g-stalled']
        : ['tour-caption', 'tour-next', 'lanes', 'crash-slider', 'crash-at', 'ro-s-lost', 'ro-s-duplicated', 'ro-s-processed', 'ro-s-redelivered', 'ro-s-archived'];
      const outside = await page.evaluate((ids) => ids.filter((id) => {
        const e = document.getElementById(id);
        if (!e) return true;
        const r = e.getBoundingClientRect();
        // Inside the viewport, and not cut off by a box that hides its overflow.
        const clipped = [...function* up(n) { for (let p = n.parentElement; p; p = p.parentElement) yield p; }(e)]
          .some((p) => getComputedStyle(p).overflow === 'hidden' && (() => { const q = p.getBoundingClientRect(); return r.bottom > q.bottom + 0.5 || r.right > q.right + 0.5; })());
        return !(r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5) || clipped
          || e.scrollWidth > e.clientWidth + 1;
      }), ids);
      assert.deepEqual(outside, [], `${kind} group at ${w}×${h}: outside the screen or cut off`);
      const below = kind === 'consumer' ? 'sweep' : 'strip';
      // The sweep comes from the worker after the lanes: wait for its chart.
      await page.waitForSelector(`canvas#${below}[data-type-scale]`);
      const scales = await page.$$eval('canvas[data-type-scale]', (cs) => Object.fromEntries(cs.map((c) => [c.id, Number(c.dataset.typeScale)])));
      for (const id of ['lanes', below]) assert.ok(scales[id] >= minScale, `${id} drawn at type scale ${scales[id]} at ${w}×${h} (≥ ${minScale})`);
      const big = await page.$eval(`.screen-side #ro-${kind === 'consumer' ? 'g' : 's'}-duplicated dd`, (e) => parseFloat(getComputedStyle(e).fontSize));
      assert.ok(big >= 0.05 * h, `readout numbers ${big} px tall at ${w}×${h}`);
      // The event moves from the screen: its slider (keyboard) changes the readouts' instant.
      if (kind === 'consumer') {
        await page.focus('#screen-event-slider');
        await page.keyboard.press('ArrowRight');
        await page.waitForFunction(() => document.querySelector('#screen-event-at-ms').value === '8.3');
        assert.equal(await page.inputValue('#event-0-at-ms'), '8.3', 'the same event as its row below');
      }
      await page.screenshot({ path: path.join(OUT, `group-projector-${kind}-${w}x${h}.png`) });
      await context.close();
    }
  }
  // The button puts projector=1 into the link; a reload keeps it; the button leaves it.
  const { page, context } = await open(browser, { viewport: { width: 1280, height: 720 } });
  await page.click('#projector');
  await page.waitForSelector('.page.group.projector .screen');
  await page.waitForFunction(() => location.hash.includes('projector=1'));
  await page.reload();
  await page.waitForSelector('.page.group.projector .screen #lanes[data-frame]');
  await page.click('#projector');
  await page.waitForSelector('.page.group:not(.projector)');
  await page.waitForFunction(() => !location.hash.includes('projector=1'));
  await context.close();
});

// Issue 27, item 3: in projector mode the share tour spoke of "the strip" and "the table
// below", which sat below the 16:9 screen. Every element a step names (its caption's
// data-names) is on the screen.
test('projector mode: every element a tour step names is on the screen, at 1280×720 and 1920×1080', async (browser) => {
  for (const [w, h] of [[1280, 720], [1920, 1080]]) {
    for (const tour of ['', 'share-']) {
      for (let n = 1; n <= 4; n++) {
        const { page, context } = await open(browser, { viewport: { width: w, height: h } }, `#tour=${tour}${n}&projector=1`);
        await page.waitForFunction((n) => document.querySelector('#tour')?.dataset.step === String(n), n);
        await page.evaluate(() => window.scrollTo(0, 0));
        const names = (await page.getAttribute('#tour-caption', 'data-names')).split(' ').filter(Boolean);
        assert.ok(names.length > 0, `tour ${tour}${n} names what it speaks of`);
        const off = await page.evaluate((names) => {
          const screen = document.querySelector('.screen').getBoundingClientRect();
          return names.filter((id) => {
            const e = document.getElementById(id);
            if (!e) return true;
            const r = e.getBoundingClientRect();
            return !(r.width > 0 && r.height > 0 && r.top >= screen.top - 0.5 && r.bottom <= Math.min(screen.bottom, innerHeight) + 0.5
              && r.left >= screen.left - 0.5 && r.right <= screen.right + 0.5);
          });
        }, names);
        assert.deepEqual(off, [], `tour ${tour}${n} at ${w}×${h}: named but not on the screen`);
        const caption = await page.textContent('#tour-caption');
        assert.ok(!/below/.test(caption) || /the strip below/.test(caption), `tour ${tour}${n} speaks of what is below the screen: ${caption}`);
        if (tour && n === 1) await page.screenshot({ path: path.join(OUT, `group-projector-share-tour-${w}x${h}.png`) });
        await context.close();
      }
    }
  }
});

test('the table of every protocol: fetched from its own module when opened, drawn again for a new scenario', async (browser) => {
  const { page, context } = await open(browser);
  const modules = [];
  page.on('request', (r) => { if (/group-worker/.test(r.url())) modules.push(r.url()); });
  await page.click('#compare-details summary');
  await page.waitForSelector('#group-compare-table');
  assert.equal(await page.$$eval('#group-compare-table tbody tr', (rows) => rows.length), 12);
  assert.equal(await page.$eval('#group-compare-table tr.current', (r) => r.dataset.duplicated), '15');
  assert.ok(modules.some((u) => u.endsWith('.wasm')), 'the worker module was fetched');
  // Another scenario (G3, a static member restarts): the table is simulated again, its
  // static row marked, with the totals the page shows.
  await page.selectOption('#preset', { label: 'G3: a static member restarts (group.instance.id)' });
  await page.waitForFunction(() => document.querySelector('#group-compare-table tr.current th')?.textContent.includes('static'));
  const current = await page.$eval('#group-compare-table tr.current', (r) => ({ ...r.dataset }));
  assert.deepEqual([current.lost, current.duplicated, current.rebalances],
    [String(await value(page, 'ro-g-lost')), String(await value(page, 'ro-g-duplicated')), String(await value(page, 'ro-g-rebalances'))]);
  await context.close();
});

test('export: the result JSON holds the scenario and the readouts; embed shows lanes and readouts only', async (browser) => {
  const { page, context } = await open(browser);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const json = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(json.result.group.duplicated, 15);
  assert.equal(json.result.group.rebalances, 1);
  assert.match(await page.inputValue('#embed-code'), /group\/\?embed=1/);
  const embed = await open(browser, { viewport: { width: 640, height: 520 } }, '');
  await embed.page.goto(URL_GROUP + '?embed=1');
  await embed.page.waitForSelector('#lanes[data-frame]');
  assert.ok(await embed.page.$('.page.group.embed'));
  assert.equal(await value(embed.page, 'ro-g-duplicated'), 15);
  assert.equal(await embed.page.$('#preset'), null, 'no controls in the embed');
  // The embed code's frame (100 % wide, 520 px) in a blog column, and on a phone: no sideways scrolling.
  for (const width of [640, 390]) {
    await embed.page.setViewportSize({ width, height: 520 });
    const scroll = await embed.page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(scroll <= width, `the embed is ${scroll} px wide in a ${width} px frame`);
  }
  // A small frame (400 × 300) and the rolling deploy's six partitions in the embed code's
  // frame: the lanes take what the readouts leave, nothing scrolls.
  for (const [width, height, hash] of [[400, 300, ''], [640, 520, '#tour=3']]) {
    await embed.page.setViewportSize({ width, height });
    await embed.page.goto(URL_GROUP + '?embed=1' + hash);
    await embed.page.waitForSelector('#lanes[data-frame]');
    await embed.page.waitForTimeout(300);
    const box = await embed.page.evaluate(() => ({
      scroll: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight],
      lanes: document.querySelector('#lanes').getBoundingClientRect().height,
    }));
    assert.ok(box.scroll[0] <= width && box.scroll[1] <= height, `${width}×${height}${hash}: ${JSON.stringify(box)}`);
    assert.ok(box.lanes >= 100, `${width}×${height}${hash}: the lanes get ${box.lanes} px`);
    await embed.page.screenshot({ path: path.join(OUT, `group-embed-${width}x${height}.png`) });
  }
  await embed.context.close();
  await context.close();
});

/** Opens the group page with its wasm held back until `release()`. */
async function held(browser, viewport, hash = '') {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  watch(page, problems, BASE);
  let release;
  const wait = new Promise((r) => { release = r; });
  await page.route('**/*_bg.wasm', async (route) => { await wait; await route.continue(); });
  await page.goto(URL_GROUP + hash);
  await page.waitForSelector('#first-frame');
  return { page, context, release };
}

test('the first frame: the page at its defaults before the wasm, the live page\'s totals, replaced in place', async (browser) => {
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    const { page, context, release } = await held(browser, { width, height });
    const totals = (prefix) => page.$$eval(`.ro[id^="${prefix}"]`, (rs) => Object.fromEntries(rs.map((r) => [r.id.slice(3), r.dataset.value])));
    const frame = await totals('ff-g-');
    assert.equal(Object.keys(frame).length, 4, 'the four totals');
    const drawn = await page.$$eval('#first-frame svg.ff-chart', (ss) => ss.filter((s) => s.getBoundingClientRect().width > 0).length);
    assert.equal(drawn, 2, `at ${width} px: one drawing of the lanes and one of the sweep`);
    const before = await page.locator('#first-frame .lanes-box').boundingBox();
    await page.screenshot({ path: path.join(OUT, `group-first-frame-${width}x${height}.png`) });
    release();
    await page.waitForSelector('#lanes[data-frame]');
    assert.equal(await page.$('#first-frame'), null, 'the live page replaced the frame');
    assert.deepEqual(await totals('ro-g-'), frame, 'the same totals, both from the core');
    const after = await page.locator('.lanes-box').boundingBox();
    assert.ok(Math.abs(after.y - before.y) <= 4 && Math.abs(after.height - before.height) <= 1,
      `at ${width} px the lanes stay where the frame drew them (${before.y}+${before.height} → ${after.y}+${after.height})`);
    await context.close();
  }
  // A link with settings of its own: the frame keeps its layout but shows no numbers or drawings.
  const { page, context, release } = await held(browser, { width: 1440, height: 900 }, '#partitions=3');
  const hidden = await page.$$eval('#first-frame .ff-live', (es) => es.every((e) => getComputedStyle(e).visibility === 'hidden'));
  assert.ok(hidden, 'numbers and drawings hidden while the link loads');
  assert.ok(await page.isVisible('#first-frame .ff-linked'));
  release();
  await page.waitForSelector('#lanes[data-frame]');
  await context.close();
});

const AXE = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/axe-core/axe.min.js'), 'utf8');
async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(() => axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
  }));
  return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1).join(' ')}`));
}

test('axe-core: no WCAG 2.2 A/AA violation (consumer group, share group, dark, phone, projector, embed, tour, first frame)', async (browser) => {
  const layouts = [
    ['consumer group, tables open', {}, '', async (page) => {
      await page.click('#compare-details summary');
      await page.click('.advanced summary');
      await page.waitForSelector('#group-compare-table');
    }],
    ['share group', {}, '', async (page) => {
      await page.selectOption('#preset', { label: 'Share group: a member hangs past its locks' });
      await page.waitForSelector('#strip[width]');
    }],
    ['dark', { colorScheme: 'dark' }, '', null],
    ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, '', null],
    ['projector', { viewport: { width: 1920, height: 1080 } }, '#projector=1', null],
    ['projector with the tour, a share group', { viewport: { width: 1280, height: 720 } }, '#projector=1', async (page) => {
      await page.selectOption('#preset', { label: 'S3: three share consumers on one partition' });
      await page.waitForSelector('#strip[width]');
      await page.click('#tour-start');
    }],
    ['tour', {}, '', (page) => page.click('#tour-start')],
  ];
  const found = [];
  for (const [name, options, hash, act] of layouts) {
    const { page, context } = await open(browser, options, hash);
    if (act) await act(page);
    found.push(...(await axeViolations(page)).map((v) => `${name}: ${v}`));
    await context.close();
  }
  const ff = await held(browser, { width: 1280, height: 800 });
  found.push(...(await axeViolations(ff.page)).map((v) => `first frame: ${v}`));
  ff.release();
  await ff.page.waitForSelector('#lanes[data-frame]');
  await ff.context.close();
  const { page, context } = await open(browser, { viewport: { width: 640, height: 520 } });
  await page.goto(URL_GROUP + '?embed=1');
  await page.waitForSelector('#lanes[data-frame]');
  found.push(...(await axeViolations(page)).map((v) => `embed: ${v}`));
  await context.close();
  assert.deepEqual(found, []);
});

test('a big group (64 members, 512 partitions, a rolling deploy): an overview, readable on a phone and a projector', async (browser) => {
  const hash = '#members=64&partitions=512&horizon_ms=120000&group_events='
    + encodeURIComponent(JSON.stringify([{ at_ms: 10000, kind: 'deploy', deploy_step_ms: 1000, restart_after_ms: 2000 }]));
  // Text as the page sets it: every element with text of its own, visible.
  const smallest = (page, within) => page.evaluate((within) => Math.min(...[...document.querySelectorAll(`${within} *`)].filter((e) => {
    const visible = e.offsetParent !== null;
    return visible && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  }).map((e) => parseFloat(getComputedStyle(e).fontSize))), within);
  const phone = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }, hash);
  const lanes = await phone.page.$eval('#lanes', (c) => c.getBoundingClientRect());
  assert.ok(lanes.height < 900 && lanes.width <= 390, `the overview is ${lanes.width}×${lanes.height} px`);
  assert.match(await phone.page.textContent('#legend'), /partition rows, one per partition/);
  assert.ok(await smallest(phone.page, '.page') >= 12, 'no text under 12 px on a phone');
  assert.ok(await phone.page.evaluate(() => document.scrollingElement.scrollWidth <= 390), 'no sideways scrolling');
  await phone.page.$eval('#group-lanes', (e) => e.scrollIntoView());
  await phone.page.screenshot({ path: path.join(OUT, 'group-big-phone-390x844.png') });
  // Zoom: 16 partitions' lanes with their lines, then one member's partitions, then back.
  assert.equal(await phone.page.$eval('#lanes', (c) => c.dataset.lanes), '512');
  const frame = () => phone.page.$eval('#lanes', (c) => Number(c.dataset.frame));
  for (const [choice, lanes, legend] of [['from-16', '16', /partition lanes: position/], ['member-1', null, /partition lanes: position/], ['all', '512', /partition rows/]]) {
    const before = await frame();
    await phone.page.selectOption('#lanes-zoom', choice);
    await phone.page.waitForFunction((n) => Number(document.querySelector('#lanes').dataset.frame) > n, before);
    const drawn = await phone.page.$eval('#lanes', (c) => Number(c.dataset.lanes));
    if (lanes) assert.equal(String(drawn), lanes, choice);
    else assert.ok(drawn >= 1 && drawn < 512, `${choice}: ${drawn} lanes`);
    assert.match(await phone.page.textContent('#legend'), legend, choice);
    if (choice === 'from-16') await phone.page.screenshot({ path: path.join(OUT, 'group-big-zoom-phone-390x844.png') });
  }
  await phone.context.close();
  const room = await open(browser, { viewport: { width: 1280, height: 720 } }, hash + '&projector=1');
  // The canvas's labels are 12 px times its type scale; the screen's own text at least 16 px.
  const scale = await room.page.$eval('#lanes', (c) => Number(c.dataset.typeScale));
  assert.ok(12 * scale >= 16, `the lanes' labels at ${12 * scale} px`);
  assert.ok(await smallest(room.page, '.screen') >= 16, 'no text under 16 px on the projector screen');
  // The overview's legend is on the screen, inside the viewport.
  const key = await room.page.$eval('#legend', (e) => {
    const box = e.closest('.screen-side');
    return { bottom: e.getBoundingClientRect().bottom, side: box && box.getBoundingClientRect().bottom };
  });
  assert.ok(key.side && key.bottom <= key.side + 0.5 && key.side <= 720, `the legend ends at ${key.bottom} px, its box at ${key.side}`);
  await room.page.screenshot({ path: path.join(OUT, 'group-big-projector-1280x720.png') });
  await room.context.close();
});

// Text as the page sets it: every visible element with text of its own, its font size (a
// reduce, not Math.min(...list): a big group's page has more elements than a call's arguments).
const smallestText = (page, within) => page.evaluate((within) => [...document.querySelectorAll(`${within} *`)].filter((e) => {
  const visible = e.offsetParent !== null;
  return visible && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
}).reduce((least, e) => Math.min(least, parseFloat(getComputedStyle(e).fontSize)), Infinity), within);

// Issue 28's presets at scale: each drawn as an overview, its readouts those of
// `offset-window run` on the same file, readable on a phone and a projector.
const BIG_PRESETS = [
  ['group-keda-scale-out-and-in', 'An autoscaler scales a group from 8 to 32 members and back', 'keda'],
  ['group-scale-rolling-deploy-128-members', 'A rolling deploy of 128 members on 1,024 partitions (eager)', 's-a'],
  ['group-posthog-pool-rolling-deploy', "PostHog's shape: a rolling deploy of 16 members on 1,024 partitions with background batches", 's-d'],
];

/** Chooses preset `label` and waits until its lanes are drawn; the ms it took. */
async function choosePreset(page, label) {
  const before = await page.$eval('#lanes', (c) => Number(c.dataset.frame));
  const t0 = Date.now();
  await page.selectOption('#preset', { label });
  await page.waitForSelector('#preset-checks li', { timeout: 120000 });
  await page.waitForFunction((n) => Number(document.querySelector('#lanes').dataset.frame) > n, before, { timeout: 120000 });
  return Date.now() - t0;
}

test('the presets at scale: an overview each, the readouts of `offset-window run`, readable on a phone and a projector', async (browser) => {
  for (const [file, label, tag] of BIG_PRESETS) {
    const cli = JSON.parse(execFileSync(CLI, ['run', path.join(ROOT, 'scenarios', `${file}.json`)], { encoding: 'utf8', maxBuffer: 1 << 30 })).group;
    const partitions = cli.partitions.length;
    const desk = await open(browser);
    const took = await choosePreset(desk.page, label);
    for (const [id, want] of [['duplicated', cli.duplicated], ['lost', cli.lost], ['rebalances', cli.rebalances]]) {
      assert.equal(await value(desk.page, `ro-g-${id}`), want, `${file}: ${id} as offset-window run says`);
    }
    assert.equal(await desk.page.$$eval('#preset-checks li.ok', (l) => l.length) > 0, true, `${file}: its expectations`);
    assert.equal(await desk.page.$$eval('#preset-checks li:not(.ok)', (l) => l.length), 0, `${file}: every expectation met`);
    assert.equal(await desk.page.$eval('#lanes', (c) => c.dataset.lanes), String(partitions), `${file}: a row per partition`);
    assert.match(await desk.page.textContent('#legend'), /partition rows, one per partition/, file);
    // The page answers while the sweep runs in its Web Worker: a zoom redraws at once.
    const before = await desk.page.$eval('#lanes', (c) => Number(c.dataset.frame));
    const t0 = Date.now();
    await desk.page.selectOption('#lanes-zoom', 'from-16');
    await desk.page.waitForFunction((n) => Number(document.querySelector('#lanes').dataset.frame) > n, before);
    const zoomed = Date.now() - t0;
    assert.equal(await desk.page.$eval('#lanes', (c) => c.dataset.lanes), '16', `${file}: zoomed to 16 lanes`);
    await desk.page.waitForFunction(() => location.hash.endsWith('&zoom=from-16'));
    await desk.page.selectOption('#lanes-zoom', 'all');
    await desk.page.waitForFunction(() => !location.hash.includes('zoom='));
    await desk.page.waitForSelector('#g-worst', { timeout: 120000 });
    await desk.page.waitForFunction(() => document.querySelector('#g-worst').getAttribute('aria-busy') !== 'true', null, { timeout: 180000 });
    console.log(`    ${file}: preset drawn in ${took} ms, a zoom in ${zoomed} ms`);
    await desk.page.screenshot({ path: path.join(OUT, `group-${tag}-desktop-1440x900.png`) });
    const hash = await desk.page.evaluate(() => location.hash);
    await desk.context.close();

    const phone = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }, hash);
    assert.equal(await value(phone.page, 'ro-g-duplicated'), cli.duplicated, `${file}: the link reproduces it`);
    assert.ok(await smallestText(phone.page, '.page') >= 12, `${file}: no text under 12 px on a phone`);
    assert.ok(await phone.page.evaluate(() => document.scrollingElement.scrollWidth <= 390), `${file}: no sideways scrolling`);
    const lanes = await phone.page.$eval('#lanes', (c) => c.getBoundingClientRect());
    assert.ok(lanes.width <= 390 && lanes.height < 900, `${file}: the overview is ${lanes.width}×${lanes.height} px`);
    await phone.page.$eval('#group-lanes', (e) => e.scrollIntoView());
    await phone.page.screenshot({ path: path.join(OUT, `group-${tag}-phone-390x844.png`) });
    await phone.context.close();

    const room = await open(browser, { viewport: { width: 1280, height: 720 } }, hash + '&projector=1');
    const scale = await room.page.$eval('#lanes', (c) => Number(c.dataset.typeScale));
    assert.ok(12 * scale >= 16, `${file}: the lanes' labels at ${12 * scale} px`);
    assert.ok(await smallestText(room.page, '.screen') >= 16, `${file}: no text under 16 px on the projector screen`);
    const key = await room.page.$eval('#legend', (e) => {
      const box = e.closest('.screen-side');
      return { bottom: e.getBoundingClientRect().bottom, side: box && box.getBoundingClientRect().bottom };
    });
    assert.ok(key.side && key.bottom <= key.side + 0.5 && key.side <= 720, `${file}: the legend ends at ${key.bottom} px`);
    await room.page.screenshot({ path: path.join(OUT, `group-${tag}-projector-1280x720.png`) });
    await room.context.close();
  }
});

test('a big group\'s drag is shown at once and simulated when it rests (S-A)', async (browser) => {
  const { page, context } = await open(browser);
  await choosePreset(page, BIG_PRESETS[1][1]);
  await page.waitForSelector('#g-worst', { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('#g-worst').getAttribute('aria-busy') !== 'true', null, { timeout: 180000 });
  const frames = () => page.evaluate(() => ['#lanes', '#lanes-marks'].map((c) => Number(document.querySelector(c).dataset.frame)));
  const [lanes, marks] = await frames();
  // A step of the drag (no `change`): the deploy's marks move, the run does not.
  await page.evaluate(() => {
    const input = document.querySelector('#event-0-slider');
    input.value = '30000';
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction((n) => Number(document.querySelector('#lanes-marks').dataset.frame) > n, marks);
  assert.equal((await frames())[0], lanes, 'the lanes wait for the drag to rest');
  assert.equal(await page.getAttribute('#g-readouts', 'aria-busy'), 'true');
  assert.match(await page.textContent('#ro-g-duplicated dd'), /^≈ \d+$/, 'the sweep\'s figure');
  assert.match(await page.textContent('#g-worst'), /Simulating the event at 30\.000 s/);
  assert.equal(await page.inputValue('#event-0-at-ms'), '30');
  // At rest: simulated, the lanes redrawn, the readouts those of `offset-window run`.
  await page.waitForFunction((n) => Number(document.querySelector('#lanes').dataset.frame) > n, lanes, { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#g-readouts').getAttribute('aria-busy') === 'false');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"at_ms":30000'));
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios', `${BIG_PRESETS[1][0]}.json`), 'utf8'));
  file.scenario.group_events[0].at_ms = 30000;
  const moved = path.join(OUT, 'group-s-a-moved.json');
  fs.writeFileSync(moved, JSON.stringify({ scenario: file.scenario }));
  const cli = JSON.parse(execFileSync(CLI, ['run', moved], { encoding: 'utf8', maxBuffer: 1 << 30 })).group;
  assert.equal(await value(page, 'ro-g-duplicated'), cli.duplicated);
  assert.equal(await value(page, 'ro-g-lost'), cli.lost);
  assert.doesNotMatch(await page.textContent('#ro-g-duplicated dd'), /≈/);
  await context.close();
});

test('a zoom in the link is drawn, and a bad one is named with what it may be', async (browser) => {
  const big = '#members=4&partitions=64';
  const { page, context } = await open(browser, {}, `${big}&zoom=member-2`);
  assert.equal(await page.inputValue('#lanes-zoom'), 'member-2');
  assert.ok(Number(await page.$eval('#lanes', (c) => c.dataset.lanes)) < 64, 'consumer-2\'s partitions only');
  await page.goto(URL_GROUP + `${big}&zoom=member-9`);
  await page.reload();
  await page.waitForSelector('#lanes[data-frame]');
  assert.equal(await page.inputValue('#lanes-zoom'), 'all');
  const notice = await page.textContent('.notices');
  assert.match(notice, /The link's zoom=member-9 was not used: it is all \(every partition\), from-N .*N from 0 to 63.* member-N .*N from 1 to 4/);
  await context.close();
});

test('screenshots: desktop 1440x900, phone 390x844, projector 1920x1080, a share group', async (browser) => {
  const desk = await open(browser);
  await desk.page.screenshot({ path: path.join(OUT, 'group-desktop-1440x900.png') });
  await desk.page.screenshot({ path: path.join(OUT, 'group-desktop-full.png'), fullPage: true });
  await desk.page.selectOption('#preset', { label: 'A rolling deploy with the range assignor (eager)' });
  await desk.page.waitForSelector('#preset-checks li');
  await desk.page.locator('#group-lanes').screenshot({ path: path.join(OUT, 'group-lanes-deploy-eager.png') });
  await desk.page.locator('#group-sweep').screenshot({ path: path.join(OUT, 'group-sweep-deploy-eager.png') });
  await desk.page.selectOption('#preset', { label: 'S3: three share consumers on one partition' });
  await desk.page.waitForSelector('#strip[width]');
  await desk.page.screenshot({ path: path.join(OUT, 'group-share-full.png'), fullPage: true });
  // The strip's 40 rows: every label apart from the next (the last two once overlapped).
  await desk.page.locator('#share-strip').screenshot({ path: path.join(OUT, 'group-strip-s3.png') });
  await desk.context.close();
  const phone = await open(browser, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await phone.page.screenshot({ path: path.join(OUT, 'group-phone-390x844.png') });
  await phone.page.screenshot({ path: path.join(OUT, 'group-phone-full.png'), fullPage: true });
  const c = await phone.page.$eval('#lanes', (e) => [e.width, e.clientWidth]);
  assert.equal(c[0], 2 * c[1], 'the lanes are drawn at devicePixelRatio 2');
  await phone.context.close();
  const room = await open(browser, { viewport: { width: 1920, height: 1080 } }, '#projector=1');
  assert.ok(await room.page.$('.page.group.projector'));
  await room.page.screenshot({ path: path.join(OUT, 'group-projector-1920x1080.png') });
  await room.context.close();
  const dark = await open(browser, { colorScheme: 'dark' });
  assert.ok(await dark.page.$('.page.group.dark'));
  await dark.page.screenshot({ path: path.join(OUT, 'group-dark-1440x900.png') });
  await dark.context.close();
});

await // Issue 28's trial, on the projector: with the tour open (step 1 at 1280×720) the side panel's
// last lines were cut at the screen's foot, and the tour's buttons were 14.4 px. Every step of
// both tours: nothing cut in the screen's boxes, nothing under 16 px.
test('projector 1280×720: every tour step with nothing cut and no text under 16 px', async (browser) => {
  for (const tour of ['', 'share-']) {
    for (let n = 1; n <= 4; n++) {
      const { page, context } = await open(browser, { viewport: { width: 1280, height: 720 } }, `#tour=${tour}${n}&projector=1`);
      await page.waitForFunction((n) => document.querySelector('#tour')?.dataset.step === String(n), n);
      const cut = await page.evaluate(() => [...document.querySelectorAll('.screen > *, .screen-top > *')]
        .filter((e) => e.scrollHeight > e.clientHeight + 1 && getComputedStyle(e).overflowY !== 'visible')
        .map((e) => `${e.className}: ${e.scrollHeight} px in ${e.clientHeight}`));
      assert.deepEqual(cut, [], `tour ${tour}${n}: cut`);
      const tourBox = await page.$eval('#tour', (e) => e.getBoundingClientRect().bottom);
      assert.ok(tourBox <= 720, `tour ${tour}${n}: the caption ends at ${tourBox} px`);
      assert.ok(await smallestText(page, '.screen') >= 16, `tour ${tour}${n}: no text under 16 px on the screen`);
      if (!tour && n === 1) await page.screenshot({ path: path.join(OUT, 'group-projector-tour-1-1280x720.png') });
      await context.close();
    }
  }
});

// Issue 28's trial: the consumer-vs-share table was 545 px wide on a 390 px phone.
test('phone 390×844: the consumer-vs-share table fits the screen', async (browser) => {
  const { page, context } = await open(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const fit = await page.$eval('#versus-table', (t) => {
    const box = t.closest('.table-scroll');
    return { table: t.getBoundingClientRect().right, box: box.getBoundingClientRect().right, scroll: box.scrollWidth, client: box.clientWidth };
  });
  assert.ok(fit.scroll <= fit.client && fit.table <= fit.box + 0.5, `the table: ${JSON.stringify(fit)}`);
  assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= 390), 'no sideways scrolling');
  assert.ok(await smallestText(page, '.compare') >= 12, 'no text under 12 px in the comparison');
  await page.$eval('#versus-table', (e) => e.scrollIntoView());
  await page.screenshot({ path: path.join(OUT, 'group-versus-phone-390x844.png') });
  await context.close();
});

runTests(tests, problems, OUT);
