// The group page's worker module (crates/group-worker, built beside the page) in Web Workers,
// inlined into group.html, so that the page's wasm carries neither the table of every protocol
// nor the sweep of the first event, and its input path never waits for them.
//  * The table: while the table is open the page's wasm shows an empty #group-compare naming
//    the scenario's link in data-scenario (crates/app/src/group, CompareBox); this fills it with
//    the module's table for that link.
//  * The sweep: window.offsetWindowGroupSweep(link) is a promise of the sweep's numbers for the
//    link (GroupProfile::to_flat, a BigUint64Array), which the page's wasm awaits.
// Each runs in a worker of its own, one job at a time: a new job stops the one in progress
// (its worker is ended, its promise rejected with "superseded") and starts on a fresh worker.
(() => {
  const glue = new URL('offset-window-group-worker.js', document.baseURI).href;
  const source = `import init, * as m from ${JSON.stringify(glue)};
const ready = init();
onmessage = async ({ data: [fn, arg] }) => {
  try { await ready; postMessage({ out: m[fn](arg) }); }
  catch (e) { postMessage({ error: String(e && e.message ? e.message : e) }); }
};`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const job = (fn) => {
    let worker;
    let busy;
    const end = (outcome) => { worker.terminate(); worker = undefined; busy = undefined; return outcome; };
    return (arg) => {
      if (busy) {
        const { reject } = busy;
        reject(end(new Error('superseded')));
      }
      worker ??= new Worker(url, { type: 'module' });
      return new Promise((resolve, reject) => {
        const mine = { reject };
        busy = mine;
        worker.onmessage = ({ data }) => {
          if (busy !== mine) return;
          busy = undefined;
          if (data.error === undefined) resolve(data.out); else reject(new Error(data.error));
        };
        worker.onerror = (e) => {
          if (busy !== mine) return;
          e.preventDefault();
          reject(end(new Error(e.message || 'the worker module could not be loaded')));
        };
        worker.postMessage([fn, arg]);
      });
    };
  };
  const table = job('group_table');
  window.offsetWindowGroupSweep = job('first_event_sweep');
  let shown;
  const fill = () => {
    const box = document.getElementById('group-compare');
    const scenario = box ? box.dataset.scenario : undefined;
    if (scenario === undefined || (box.firstChild && shown === scenario)) return;
    shown = scenario;
    if (!box.firstChild) box.innerHTML = '<p class="hint">Simulating every protocol…</p>';
    box.setAttribute('aria-busy', 'true');
    table(scenario)
      .then((html) => {
        if (box.dataset.scenario !== scenario) return;
        box.innerHTML = html;
        box.removeAttribute('aria-busy');
      })
      .catch((err) => {
        if (err.message === 'superseded') return;
        shown = undefined;
        box.removeAttribute('aria-busy');
        const p = document.createElement('p');
        p.className = 'import-error';
        p.setAttribute('role', 'alert');
        p.textContent = `The table could not be simulated (${err.message}): close the table and open it to try again.`;
        box.replaceChildren(p);
      });
  };
  new MutationObserver(fill).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-scenario'],
  });
})();
