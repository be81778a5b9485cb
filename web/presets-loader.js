// The presets' files (presets.json, written beside the page by the first-frame binary),
// fetched on the first preset chosen that the page's wasm does not carry. Inlined into the
// consumer and group pages; the offline page replaces it with its inlined copy.
window.offsetWindowPresets = () => fetch(new URL('presets.json', document.baseURI).href)
  .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`presets.json: HTTP ${r.status}`))));
