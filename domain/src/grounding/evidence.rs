//! What the person's files say, cut into passages a fact can be found in: the Career Context's
//! sentences, list items, QUICK REFERENCE entries and VERIFIED FACTS (each with its section and
//! the entry heading above it, since that heading carries the entry's dates and employer), and
//! VitaeGraph records (title and plain text) reached through the search index.

use std::collections::{HashMap, HashSet};

use super::claims::split;
use super::text::{Number, fold, is_content, numbers, stem, words};
use crate::graph::search::Pending;
use crate::graph::search::{Query, Searcher};

/// Where a passage comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The Career Context: its file name and the H2 section.
    Context { file: String, section: String },
    /// A VitaeGraph record: its id and path under the root.
    Record { id: String, path: String },
}

/// A piece of the person's files.
#[derive(Debug, Clone)]
pub struct Passage {
    pub origin: Origin,
    /// Heading (if any), a newline, then the passage's own text.
    pub text: String,
    /// (offset in `text`, 1-based line in the file) of each line start, for Career Context
    /// passages; empty for records (the index holds their text without line breaks).
    lines: Vec<(usize, usize)>,
    pub stems: HashSet<String>,
    /// Folded words, for name lookups.
    pub words: Vec<String>,
    pub numbers: Vec<Number>,
    /// Where the passage's own text starts in `text`, after the heading or title line.
    pub body: usize,
    /// Whether it is about one entry of the person's history (under an H3-H6 heading of the
    /// Career Context, or a record), as opposed to the QUICK REFERENCE, the VERIFIED FACTS or a
    /// section's own text, which are about the whole person.
    pub in_entry: bool,
    /// For a Career Context passage in an entry, the line indices of the entry's heading and
    /// of the entries it is in.
    pub entries: Vec<usize>,
    /// Whether it says what the person wants rather than what they did: the GOALS AND
    /// TARGETING section, or a QUICK REFERENCE key about targets or goals (`target_roles`).
    /// Found in review: `I'm currently Head of Data Platform` was supported by the target
    /// roles, and `Fintech experience` covered by "ideally in fintech".
    pub goal: bool,
}

impl Passage {
    fn new(origin: Origin, text: String, lines: Vec<(usize, usize)>, body: usize, in_entry: bool) -> Self {
        let ws = words(&text);
        let stems = ws.iter().filter(|w| is_content(w.text)).map(|w| stem(w.text)).collect();
        let nums = numbers(&text, &ws);
        let words = ws.iter().map(|w| fold(w.text)).collect();
        Passage { origin, text, lines, stems, words, numbers: nums, body, in_entry, entries: Vec::new(), goal: false }
    }

    /// The file line of a byte offset of `text`, when known.
    pub fn line_at(&self, offset: usize) -> Option<usize> {
        let i = self.lines.partition_point(|&(o, _)| o <= offset);
        let (o, line) = *self.lines.get(i.checked_sub(1)?)?;
        Some(line + self.text[o..offset].matches('\n').count())
    }

    /// Whether the folded word sequence `name` occurs here; the offset of its first word.
    pub fn find_name(&self, name: &[String]) -> Option<usize> {
        if name.is_empty() || name.len() > self.words.len() {
            return None;
        }
        let pos = self.words.windows(name.len()).position(|w| w == name)?;
        words(&self.text).get(pos).map(|w| w.span.start)
    }

    /// The passage's text without the heading line, shortened for display.
    pub fn excerpt(&self, around: usize) -> String {
        let line_start = self.text[..around.min(self.text.len())].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[line_start..].find('\n').map_or(self.text.len(), |i| line_start + i);
        let line = self.text[line_start..line_end].trim();
        let mut out: String = line.chars().take(200).collect();
        if line.chars().count() > 200 {
            out.push('…');
        }
        out
    }
}

/// The Markdown headings of `lines` outside code fences: (line index, level, title).
fn headings<'t>(lines: &[&'t str]) -> Vec<(usize, usize, &'t str)> {
    let mut headings = Vec::new();
    let mut in_fence = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_end_matches('\r');
        if t.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && t.starts_with('#') {
            let level = t.chars().take_while(|&c| c == '#').count();
            if t[level..].starts_with(' ') {
                headings.push((i, level, t[level..].trim()));
            }
        }
    }
    headings
}

/// The names the Career Context's entries (its H3 to H6 headings) go by, folded: the title
/// before the tag and the organisation after the dash, without the dates
/// (`Backend Engineer [ROLE] - Harbourline Studio (2016-2018)`: `backend engineer` and
/// `harbourline studio`; `cachewarden [PROJECT]`: `cachewarden`).
///
/// A claim that names entries is about the one it names most fully: `Senior Software
/// Engineer, Brightwave Analytics` is about the entry with both names, not another Senior
/// Software Engineer role nor another Brightwave Analytics one. A passage of another entry
/// neither supports nor contradicts its numbers and dates (found in review: `pipeline-lens
/// has 5,000 GitHub stars` was contradicted by cachewarden's 1,300, and dates swapped between
/// two roles of one title were supported).
#[derive(Debug, Default)]
pub struct EntryNames {
    /// Each name, with the entries (heading line indices) that go by it.
    names: HashMap<Vec<String>, Vec<usize>>,
    /// The lengths, in words, that names have.
    lengths: Vec<usize>,
}

/// The entries a claim names: those it names most fully, and the names it used for them.
#[derive(Debug, Default)]
pub struct Named<'n> {
    pub entries: Vec<usize>,
    pub names: Vec<&'n [String]>,
}

impl Named<'_> {
    /// Whether the passage is about an entry the claim names: one of those entries' own, or a
    /// record that uses one of their names. Anything goes when the claim names none.
    pub fn covers(&self, p: &Passage) -> bool {
        if self.entries.is_empty() {
            return true;
        }
        if p.entries.is_empty() {
            p.in_entry && self.names.iter().any(|n| p.find_name(n).is_some())
        } else {
            p.entries.iter().any(|e| self.entries.contains(e))
        }
    }
}

/// At most this many entry names are taken from one claim: a claim naming more is not about
/// one thing, and each is looked for in the records that could contradict the claim.
pub const MAX_NAMED: usize = 8;
/// An entry name is at most this many words (a longer title names nothing a claim would
/// repeat whole).
const MAX_NAME_WORDS: usize = 12;

impl EntryNames {
    pub fn new(text: &str) -> EntryNames {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut names: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
        for (line, level, title) in headings(&lines) {
            if level < 3 {
                continue;
            }
            let (before, after) = match title.find('[') {
                Some(b) => (&title[..b], title[b..].find(']').map_or("", |e| &title[b + e + 1..])),
                None => [" - ", " – ", " — "].iter().find_map(|d| title.split_once(d)).unwrap_or((title, "")),
            };
            let after = after.trim_start().trim_start_matches(['-', '–', '—']);
            for part in [before, after] {
                let ws = words(part.split('(').next().unwrap_or_default());
                if ws.len() <= MAX_NAME_WORDS && ws.iter().any(|w| is_content(w.text)) {
                    let entries = names.entry(ws.iter().map(|w| fold(w.text)).collect()).or_default();
                    if entries.last() != Some(&line) {
                        entries.push(line);
                    }
                }
            }
        }
        let mut lengths: Vec<usize> = names.keys().map(Vec::len).collect();
        lengths.sort_unstable();
        lengths.dedup();
        EntryNames { names, lengths }
    }

    /// The entries a claim, given as its folded words, names most fully (at most
    /// [`MAX_NAMED`] names are read).
    pub fn named_in<'n>(&'n self, claim: &[String]) -> Named<'n> {
        let mut found: Vec<(&[String], &[usize])> = Vec::new();
        'words: for i in 0..claim.len() {
            for &n in &self.lengths {
                if let Some((name, entries)) = claim.get(i..i + n).and_then(|w| self.names.get_key_value(w))
                    && !found.iter().any(|(f, _)| *f == name.as_slice())
                {
                    found.push((name, entries));
                    if found.len() == MAX_NAMED {
                        break 'words;
                    }
                }
            }
        }
        let mut count: HashMap<usize, usize> = HashMap::new();
        for (_, entries) in &found {
            for &e in *entries {
                *count.entry(e).or_default() += 1;
            }
        }
        let most = count.values().copied().max().unwrap_or(0);
        let mut entries: Vec<usize> = count.into_iter().filter(|&(_, c)| c == most).map(|(e, _)| e).collect();
        entries.sort_unstable();
        let names = found.iter().filter(|(_, es)| es.iter().any(|e| entries.contains(e))).map(|(n, _)| *n).collect();
        Named { entries, names }
    }
}

/// Whether an H2 is the section about what the person wants (formats.md: `goals and
/// targeting`), by its normalized name.
fn is_goal_section(title: &str) -> bool {
    let name: String = title.chars().filter(|c| !matches!(c, '`' | '*' | '_')).collect();
    name.split_whitespace().collect::<Vec<_>>().join(" ").eq_ignore_ascii_case("goals and targeting")
}

/// Whether a QUICK REFERENCE entry (`key: value`, its `_` read as spaces) is about what the
/// person wants: a key that starts with `target`, or names a goal or a wish (not
/// `preferred_name`, which is a fact; found in review).
fn is_goal_key(entry: &str) -> bool {
    let Some((key, _)) = entry.split_once(':') else { return false };
    let key = key.trim().to_ascii_lowercase();
    key.starts_with("target")
        || key.split(' ').any(|w| matches!(w, "goal" | "goals" | "desired" | "seeking" | "wanted" | "next"))
}

/// The Career Context as passages.
pub fn context_passages(file: &str, text: &str) -> Vec<Passage> {
    let c = ContextPassages::new(file, text);
    (0..c.len()).map(|i| c.get(i)).collect()
}

/// Where a passage's own text is: a span of the file, or text made from it (a QUICK REFERENCE
/// entry with its `_` read as spaces, a VERIFIED FACTS pair).
#[derive(Debug, Clone)]
enum Body {
    Span(std::ops::Range<usize>),
    Made(Box<str>),
}

/// One passage, before it is made: its line (0-based, for the headings it is under; its text
/// starts on the next 1-based line), its text, and whether it is about the whole person. Kept
/// small: a 16 MiB file has some 370,000 of them (56 bytes each took 21 MB).
#[derive(Debug, Clone)]
struct Spec {
    line_idx: u32,
    whole_person: bool,
    body: Body,
}

impl Spec {
    fn line(&self) -> usize {
        self.line_idx as usize
    }

    /// The 1-based line its text starts on.
    fn body_line(&self) -> usize {
        self.line() + 1
    }
}

/// A 0-based line index as stored (a file is at most 16 MiB: far fewer lines than `u32` holds).
fn line_index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The Career Context's passages, each made when asked for ([`ContextPassages::get`]): a
/// check reads a few passages per claim through an index, so a 16 MiB file need not be held
/// as passages (with their words, stems and numbers) all at once.
#[derive(Debug)]
pub struct ContextPassages<'t> {
    file: &'t str,
    text: &'t str,
    headings: Vec<(usize, usize, &'t str)>,
    /// For each heading, the last H1 or H2 at or before it.
    sections: Vec<Option<usize>>,
    /// For each heading, the entry headings (H3-H6) it is in, outermost first.
    chains: Vec<Vec<usize>>,
    specs: Vec<Spec>,
}

impl<'t> ContextPassages<'t> {
    pub fn new(file: &'t str, text: &'t str) -> Self {
        let lines: Vec<&str> = text.split('\n').collect();
        let headings = headings(&lines);
        // For each heading, the last H1 or H2 at or before it: found by halves and looked up,
        // not by filtering every heading for every passage (64,000 headings took 7 s a
        // request; found in review).
        let sections: Vec<Option<usize>> = headings
            .iter()
            .enumerate()
            .scan(None, |last, (i, h)| {
                if h.1 <= 2 {
                    *last = Some(i);
                }
                Some(*last)
            })
            .collect();
        // For each heading, the entry headings (H3-H6) it is in, outermost first, itself
        // included when it is one: a thesis under its degree is about the degree too (found in
        // review: `My MSc thesis at the University of Porto` was no longer contradicted by the
        // thesis's own figure). At most four deep.
        let mut stack: Vec<usize> = Vec::new();
        let chains: Vec<Vec<usize>> = headings
            .iter()
            .enumerate()
            .map(|(k, h)| {
                while stack.last().is_some_and(|&t| headings[t].1 >= h.1) {
                    stack.pop();
                }
                if h.1 <= 2 {
                    stack.clear();
                } else {
                    stack.push(k);
                }
                stack.clone()
            })
            .collect();
        let mut specs = Vec::new();
        for c in split(text) {
            specs.push(Spec { line_idx: line_index(c.line - 1), body: Body::Span(c.span), whole_person: false });
        }
        // QUICK REFERENCE entries and VERIFIED FACTS, which the claim splitter skips.
        let mut in_quick = false;
        let mut fence = false;
        let mut entry: Option<(usize, String)> = None;
        let made = |li: usize, body: String| Spec {
            line_idx: line_index(li),
            body: Body::Made(body.into_boxed_str()),
            whole_person: true,
        };
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_end_matches('\r');
            if let Some(h) = t.strip_prefix("## ") {
                in_quick = h.trim().eq_ignore_ascii_case("quick reference");
            }
            if t.trim_start().starts_with("```") {
                fence = !fence;
                if let Some((li, body)) = entry.take() {
                    specs.push(made(li, body));
                }
                continue;
            }
            if in_quick && fence {
                if t.starts_with([' ', '\t']) {
                    if let Some((_, body)) = entry.as_mut() {
                        body.push('\n');
                        body.push_str(t);
                    }
                } else {
                    if let Some((li, body)) = entry.take() {
                        specs.push(made(li, body));
                    }
                    entry = Some((i, t.replace('_', " ")));
                }
            }
            if let Some(rest) = t.trim_start().strip_prefix("<!--")
                && let Some(facts) = rest.trim_start().strip_prefix("VERIFIED FACTS:")
            {
                let facts = facts.trim_end().trim_end_matches("-->");
                for pair in facts.split(',') {
                    specs.push(made(i, pair.trim().replace('_', " ")));
                }
            }
        }
        specs.shrink_to_fit();
        ContextPassages { file, text, headings, sections, chains, specs }
    }

    pub fn len(&self) -> usize {
        self.specs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The section and the entry chain of a 0-based line. A heading's own line is under that
    /// heading, not the one before it: found in review, `### Backend Engineer [ROLE] -
    /// Harbourline Studio (2016-2018)` was read with the entry above it, `(2018-2021)`, and a
    /// date was "contradicted" by the wrong entry.
    fn context_of(&self, line_idx: usize) -> (&'t str, &[usize]) {
        let before = self.headings.partition_point(|h| h.0 <= line_idx);
        let Some(last) = before.checked_sub(1) else { return ("", &[]) };
        let section = self.sections[last].map_or("", |i| self.headings[i].2);
        (section, self.chains[last].as_slice())
    }

    /// Passage `i`'s text: the titles of the entries it is in (each on its line), then its own
    /// text; with the line map and where its own text starts.
    fn text_of(&self, i: usize) -> (String, Vec<(usize, usize)>, usize) {
        let spec = &self.specs[i];
        let (_, chain) = self.context_of(spec.line());
        let (mut s, mut map) = (String::new(), Vec::new());
        for &k in chain {
            let (hl, _, title) = self.headings[k];
            if hl + 1 != spec.body_line() {
                map.push((s.len(), hl + 1));
                s.push_str(title);
                s.push('\n');
            }
        }
        map.push((s.len(), spec.body_line()));
        let body_at = s.len();
        s.push_str(self.body(i));
        (s, map, body_at)
    }

    /// Passage `i`'s own text.
    fn body(&self, i: usize) -> &str {
        match &self.specs[i].body {
            Body::Span(r) => &self.text[r.clone()],
            Body::Made(b) => b,
        }
    }

    /// Passage `i`, made.
    pub fn get(&self, i: usize) -> Passage {
        let spec = &self.specs[i];
        let (section, chain) = self.context_of(spec.line());
        let body = self.body(i);
        let goal = is_goal_section(section) || (spec.whole_person && is_goal_key(body));
        let in_entry = !chain.is_empty() && !spec.whole_person;
        let origin = Origin::Context { file: self.file.to_owned(), section: section.to_owned() };
        let (s, map, body_at) = self.text_of(i);
        let entries = if in_entry { chain.iter().map(|&k| self.headings[k].0).collect() } else { Vec::new() };
        Passage { entries, goal, ..Passage::new(origin, s, map, body_at, in_entry) }
    }

    /// Whether passage `i` may bear out a number of a claim that names the entries `named` (its
    /// heading lines): it is about no entry, or about one of them ([`Named::covers`]), read
    /// without making the passage.
    pub fn may_support(&self, i: usize, named: &Named<'_>) -> bool {
        let spec = &self.specs[i];
        let (_, chain) = self.context_of(spec.line());
        spec.whole_person
            || chain.is_empty()
            || named.entries.is_empty()
            || chain.iter().any(|&k| named.entries.contains(&self.headings[k].0))
    }

    /// The QUICK REFERENCE entries and VERIFIED FACTS (about the whole person, not one entry),
    /// in file order; a few dozen in any file.
    pub fn whole_person(&self) -> impl Iterator<Item = usize> + '_ {
        self.specs.iter().enumerate().filter(|(_, s)| s.whole_person).map(|(i, _)| i)
    }

    /// Whether passage `i` says what the person wants (see [`Passage::goal`]), without making it.
    pub fn is_goal(&self, i: usize) -> bool {
        let spec = &self.specs[i];
        let (section, _) = self.context_of(spec.line());
        is_goal_section(section) || (spec.whole_person && is_goal_key(self.body(i)))
    }

    /// Passage `i`'s full text (entry titles and its own), for indexing it without making it.
    pub fn full_text(&self, i: usize) -> String {
        self.text_of(i).0
    }

    /// Whether passage `i` holds the folded word sequence `name` ([`Passage::find_name`]),
    /// reading only its words.
    pub fn holds_name(&self, i: usize, name: &[String]) -> bool {
        let text = self.full_text(i);
        let ws: Vec<String> = words(&text).iter().map(|w| fold(w.text)).collect();
        !name.is_empty() && ws.windows(name.len()).any(|w| w == name)
    }
}

/// The records of a VitaeGraph, as passages found through its search index and kept once.
#[derive(Debug)]
pub struct GraphEvidence<'a> {
    searcher: &'a Searcher,
    /// Records changed since the index (a server with `--watch`): searched beside it, and
    /// read from here rather than from the index, as `search_vitaegraph` does.
    pending: Option<&'a Pending>,
    cache: HashMap<String, Passage>,
}

/// How many top search results are read as evidence for one claim or one name.
pub const RECORDS_PER_QUERY: usize = 8;

impl<'a> GraphEvidence<'a> {
    pub fn new(searcher: &'a Searcher, pending: Option<&'a Pending>) -> Self {
        Self { searcher, pending, cache: HashMap::new() }
    }

    /// The ids of the best records for `query`, their passages made ready.
    pub fn search(&mut self, query: &str, limit: usize) -> Vec<String> {
        let query = Query { text: Some(query), ..Default::default() };
        let hits = match self.pending {
            Some(pending) => self.searcher.search_with(&query, pending),
            None => self.searcher.search(&query),
        };
        let ids: Vec<String> = hits.records.into_iter().take(limit).map(|h| h.id).collect();
        for id in &ids {
            if self.cache.contains_key(id) {
                continue;
            }
            // A hit is a pending record's when one has its id: the index's is hidden then.
            let (origin, title, text) = match self.pending.and_then(|p| p.document(id)) {
                Some(d) => {
                    (Origin::Record { id: d.id.clone(), path: d.path.clone() }, d.title.as_str(), d.text.clone().into())
                }
                None => match self.searcher.document(id) {
                    Some(d) => (Origin::Record { id: d.id.to_owned(), path: d.path.to_owned() }, d.title, d.text),
                    None => continue,
                },
            };
            let p = Passage::new(origin, format!("{title}\n{text}"), Vec::new(), title.len() + 1, true);
            self.cache.insert(id.clone(), p);
        }
        ids
    }

    pub fn get(&self, id: &str) -> Option<&Passage> {
        self.cache.get(id)
    }
}
