//! The structure of the page's pure parts, checked: pages are siblings on one kit.
//!
//! * No file under a page's folder (`consumer/`, `group/`, `producer/`) imports another page,
//!   and `kit/` imports no page (tests included).
//! * No import cycle between the modules of `crates/view`, nor between those of the core
//!   (`crates/sim`, every file whatever its features: `engine/member.rs` holds both the
//!   group side and its stand-ins for the build without groups). Library code only: a
//!   module's `#[cfg(test)]` part may read a module that reads it.
//!
//! The reader is a small one, made for this code base: it follows `crate::`, `super::` and
//! `self::` paths in `use` items (braces expanded) and in expressions, resolves a name
//! re-exported with `pub use` to the module that defines it, skips comments, and treats a
//! module declaring its children (`mod x;`) and re-exporting them as no import. It reads
//! paths only, and a file as one module: a method called on a type whose `impl` block sits in
//! another file, or an inline `mod` block, goes unseen (so a type's impl stays in one file,
//! or in a file that only adds to it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The pages: folders of `crates/view/src` that must not import each other.
const PAGES: &[&str] = &["consumer", "group", "producer"];

/// One module file: its path (`consumer::charts`), its library code and its test code.
struct Module {
    file: PathBuf,
    code: String,
    tests: String,
    /// Names re-exported with `pub use`, and the full path each stands for.
    reexports: BTreeMap<String, Vec<String>>,
}

type Modules = BTreeMap<Vec<String>, Module>;

/// The modules one module imports, each by its path.
type Imports = BTreeSet<Vec<String>>;

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "bin") {
                rs_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path below the crate root: `src/lib.rs` is `[]`, `src/kit/mod.rs` is
/// `["kit"]`, `src/kit/draw.rs` is `["kit", "draw"]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("lib" | "mod" | "main")) {
        parts.pop();
    }
    parts
}

/// The text without comments (line comments, doc comments, block comments) and without
/// string literals' contents, so that a path in a sentence or a message is no import.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                } else if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"')) && !ident(b, i)
        {
            // A raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                if b[j] == b'\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A character literal such as '"'.
            out.push_str("' '");
            i += 3;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Whether the byte before `i` continues an identifier (so `r` at `i` is not a raw string).
fn ident(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// Splits a file's code at its top-level `#[cfg(test)]`: (library code, test code).
fn split_tests(code: &str) -> (String, String) {
    match code.find("\n#[cfg(test)]") {
        Some(at) => (code[..at].to_string(), code[at..].to_string()),
        None => (code.to_string(), String::new()),
    }
}

/// The `use` trees of `code` expanded into paths: `use a::{b, c::d};` gives `a::b`,
/// `a::c::d`; `pub use` items are left out (a re-export is no import of its own) unless
/// `with_pub`. Each path is returned as its segments.
fn use_paths(code: &str, with_pub: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let Some(end) = rest[at..].find(';') else { break };
        let tree = &rest[at + 3..at + end];
        if !public || with_pub {
            // `x as y` keeps its word break (an `@`) so that `as` inside a name is no alias.
            let words: Vec<&str> = tree.split_whitespace().collect();
            let tree = words.join(" ").replace(" as ", "@").replace(' ', "");
            expand(&tree, &mut Vec::new(), &mut out);
        }
        rest = &rest[at + end..];
    }
    out
}

/// The first `word` in `text` standing alone (not inside an identifier).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(word).map(|i| i + from) {
        let after = b.get(i + word.len()).copied().unwrap_or(b' ');
        if !(ident(b, i) || after.is_ascii_alphanumeric() || after == b'_') {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim_start_matches("::");
    if let Some(open) = tree.find('{') {
        let head: Vec<String> =
            tree[..open].split("::").filter(|s| !s.is_empty()).map(String::from).collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let n = prefix.len();
        prefix.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], prefix, out);
        prefix.truncate(n);
    } else if !tree.is_empty() {
        let tree = tree.split('@').next().unwrap_or(tree);
        let mut path = prefix.clone();
        path.extend(tree.split("::").filter(|s| !s.is_empty()).map(String::from));
        if path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        out.push(path);
    }
}

/// The paths starting with `crate::`, `super::` or `self::` written in expressions and types.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start).map(|i| i + from) {
            from = i + start.len();
            if ident(code.as_bytes(), i) {
                continue;
            }
            let path: String =
                code[i..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            out.push(path.split("::").filter(|s| !s.is_empty()).map(String::from).collect());
        }
    }
    out
}

/// Reads every module of the crate whose sources are in `src`.
fn read_crate(src: &Path) -> Modules {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let mut modules = Modules::new();
    for file in files {
        let (code, tests) = split_tests(&code_only(&fs::read_to_string(&file).unwrap()));
        let mut reexports = BTreeMap::new();
        for path in use_paths(&pub_uses(&code), true) {
            if let Some(name) = path.last() {
                reexports.insert(name.clone(), path.clone());
            }
        }
        modules.insert(module_path(src, &file), Module { file, code, tests, reexports });
    }
    modules
}

/// The `pub use` items of `code`, alone.
fn pub_uses(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let before = rest[..at].trim_end();
        let Some(end) = rest[at..].find(';') else { break };
        if before.ends_with("pub") {
            out.push_str(&rest[at..=at + end]);
            out.push('\n');
        }
        rest = &rest[at + end..];
    }
    out
}

/// The module a path written in module `from` names: the longest prefix that is a module,
/// followed through re-exports. `None` for a path outside the crate.
fn resolve(modules: &Modules, from: &[String], path: &[String], depth: u32) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("super") => {
            let mut b = from.to_vec();
            let mut p = path;
            while p.first().is_some_and(|s| s == "super") {
                b.pop();
                p = &p[1..];
            }
            (b, p)
        }
        Some("self") => (from.to_vec(), &path[1..]),
        // A child module of `from` named without `self::` (2018 paths), e.g. `use timeline::X`.
        Some(first) if modules.contains_key(&[from, &[first.to_string()]].concat()) => (from.to_vec(), path),
        _ => return None,
    };
    let mut i = 0;
    while i < rest.len() {
        let mut next = base.clone();
        next.push(rest[i].clone());
        if modules.contains_key(&next) {
            base = next;
            i += 1;
        } else {
            break;
        }
    }
    if let (Some(name), Some(m), true) = (rest.get(i), modules.get(&base), depth < 8) {
        if let Some(target) = m.reexports.get(name) {
            let target = target.clone();
            if let Some(t) = resolve(modules, &base, &target, depth + 1) {
                return Some(t);
            }
        }
    }
    Some(base)
}

/// Each module's imports of other modules: (library code's, test code's).
fn imports(modules: &Modules) -> BTreeMap<Vec<String>, (Imports, Imports)> {
    let mut out = BTreeMap::new();
    for (name, m) in modules {
        let read = |code: &str, in_tests: bool| -> BTreeSet<Vec<String>> {
            // In a `mod tests { … }` inside the file, `super` is the file's own module.
            let here: Vec<String> = if in_tests {
                name.iter().cloned().chain(std::iter::once("tests".to_string())).collect()
            } else {
                name.clone()
            };
            use_paths(code, false)
                .into_iter()
                .chain(inline_paths(code))
                .filter_map(|p| resolve(modules, &here, &p, 0))
                // The crate root only declares modules and re-exports: no import of its own.
                .filter(|t| t != name && !t.is_empty())
                .collect()
        };
        out.insert(name.clone(), (read(&m.code, false), read(&m.tests, true)));
    }
    out
}

/// The import cycles (strongly connected components of more than one module), each listed
/// by its modules' files.
fn cycles(src: &Path) -> (usize, Vec<Vec<String>>) {
    let modules = read_crate(src);
    let edges = imports(&modules);
    let names: Vec<&Vec<String>> = modules.keys().collect();
    let index: BTreeMap<&Vec<String>, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> =
        names.iter().map(|n| edges[*n].0.iter().filter_map(|t| index.get(t).copied()).collect()).collect();
    // Tarjan's strongly connected components.
    struct T<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &t.adj[v].clone() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut c = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            t.out.push(c);
        }
    }
    let n = names.len();
    let mut t = T {
        adj: &adj,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    let file = |i: usize| modules[names[i]].file.strip_prefix(src).unwrap().to_string_lossy().into_owned();
    let mut found: Vec<Vec<String>> = t
        .out
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut files: Vec<String> = c.into_iter().map(file).collect();
            files.sort();
            files
        })
        .collect();
    found.sort();
    (n, found)
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name).join("src")
}

#[test]
fn no_page_imports_another_page_and_the_kit_imports_none() {
    let src = crate_src("view");
    let modules = read_crate(&src);
    let edges = imports(&modules);
    let mut wrong = Vec::new();
    for (name, (code, tests)) in &edges {
        let Some(top) = name.first() else { continue };
        let own_page = PAGES.contains(&top.as_str());
        if !own_page && top != "kit" {
            continue;
        }
        for target in code.iter().chain(tests) {
            let Some(to) = target.first() else { continue };
            if PAGES.contains(&to.as_str()) && to != top {
                wrong.push(format!("{} imports {}", modules[name].file.display(), target.join("::")));
            }
        }
    }
    assert!(wrong.is_empty(), "pages are siblings on one kit:\n{}", wrong.join("\n"));
    assert!(modules.keys().any(|m| m.first().is_some_and(|t| t == "kit")), "the kit is read");
}

#[test]
fn view_has_no_import_cycle() {
    let (n, found) = cycles(&crate_src("view"));
    assert!(n > 20, "read {n} modules");
    let listed: Vec<String> = found.iter().map(|c| c.join(" ↔ ")).collect();
    assert!(found.is_empty(), "import cycles in crates/view:\n{}", listed.join("\n"));
}

#[test]
fn sim_has_no_import_cycle() {
    let (n, found) = cycles(&crate_src("sim"));
    assert!(n > 20, "read {n} modules");
    let listed: Vec<String> = found.iter().map(|c| c.join(" ↔ ")).collect();
    assert!(found.is_empty(), "import cycles in crates/sim:\n{}", listed.join("\n"));
}

#[test]
fn the_reader_finds_a_cycle_and_a_page_import() {
    let code = code_only(
        "use crate::a::{b::X, c};\n// crate::d::Y\nfn f() { super::e::g(); let s = \"crate::h\"; }",
    );
    let uses = use_paths(&code, false);
    assert_eq!(uses, vec![vec!["crate", "a", "b", "X"], vec!["crate", "a", "c"]]);
    let aliased = use_paths("use super::{assignor, queue::Phase as P, base as b};", false);
    assert_eq!(
        aliased,
        vec![vec!["super", "assignor"], vec!["super", "queue", "Phase"], vec!["super", "base"]]
    );
    let inline = inline_paths(&code);
    assert!(inline.iter().any(|p| p == &["super", "e", "g"]), "{inline:?}");
    assert!(
        !inline.iter().any(|p| p.contains(&"d".to_string()) || p.contains(&"h".to_string())),
        "{inline:?}"
    );
    let (lib, tests) = split_tests("use crate::a;\n#[cfg(test)]\nmod tests { use crate::b; }");
    assert!(lib.contains("crate::a") && tests.contains("crate::b") && !lib.contains("crate::b"));
}
