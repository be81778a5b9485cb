// The group page's table of every protocol and assignor (issue 27's budget), inlined into
// group.html. While the table is open the page's wasm shows an empty #group-compare naming
// the scenario's link in data-scenario (crates/app/src/group, CompareBox); this fills it with
// the table the comparison module (crates/group-compare, built beside the page) simulates for
// that link. The module is fetched on first use, or ahead when the pointer or the focus comes
// to the table. Here rather than in the page's wasm, where the same is 2.5 KB.
(() => {
  let module;
  const load = () => (module ??= import(new URL('offset-window-group-compare.js', document.baseURI).href)
    .then(async (m) => { await m.default(); return m; })
    .catch((e) => { module = undefined; throw e; }));
  for (const ahead of ['pointerover', 'focusin']) {
    document.addEventListener(ahead, (e) => { if (e.target.closest && e.target.closest('#compare-details')) load().catch(() => {}); });
  }
  let shown;
  const fill = () => {
    const box = document.getElementById('group-compare');
    const scenario = box ? box.dataset.scenario : undefined;
    if (scenario === undefined || (box.firstChild && shown === scenario)) return;
    shown = scenario;
    if (!box.firstChild) box.innerHTML = '<p class="hint">Simulating every protocol…</p>';
    box.setAttribute('aria-busy', 'true');
    load()
      .then((m) => {
        if (box.dataset.scenario === scenario) box.innerHTML = m.group_table(scenario);
      })
      .catch((err) => {
        shown = undefined;
        const p = document.createElement('p');
        p.className = 'import-error';
        p.setAttribute('role', 'alert');
        p.textContent = `The comparison module could not be loaded (${err && err.message ? err.message : err}): close the table and open it to try again.`;
        box.replaceChildren(p);
      })
      .finally(() => box.removeAttribute('aria-busy'));
  };
  new MutationObserver(fill).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-scenario'],
  });
})();
