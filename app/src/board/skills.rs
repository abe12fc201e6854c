//! The Skills page: the layers in priority order, every skill with what it shadows, conflicts
//! and files that are not skills (with the line), installed skills against their lock; the
//! preview of a prompt; editing a skill file.
//!
//! A file is named by its layer (the index among the configured layers) and its path below
//! the layer's folder, plain names only: it is read with `read_beneath` from the layer's folder
//! (no symlink followed), so no form can name a file outside the configured layers. A save is
//! parsed as the server parses skill files and refused (422) with the problems when it does not
//! parse; it carries the SHA-256 of the text it edited, and when the file changed since (another
//! editor, `skills install`), it is refused with 409 and a diff. The replaced text is kept first
//! by `usecase::write_backup` (the one backup rule), and the write is
//! `FileSystem::replace_if_unchanged`, so a change made between the check and the write is not
//! lost either.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use domain::skills::{SkillFormat, SkillSet};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::pages::{Nav, error_page, layout, urlencode};
use super::{Board, blocking, shown};
use crate::usecase::skills::{self as usecase, Layer, Locations};

/// The largest skill file edited on the board (skill files are a few KiB).
const MAX_SKILL_BYTES: u64 = 1024 * 1024;

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The configured layers and the set they make, with where each file is.
fn load(b: &Board) -> Result<(Vec<Layer>, SkillSet, Locations), String> {
    let layers = usecase::resolve_layers(&*b.fs, &b.sources.skill_sources(&*b.fs)).map_err(|e| e.to_string())?;
    let (set, located) = usecase::load_located(&*b.fs, &layers);
    Ok((layers, set, located))
}

/// `(layer index, path below it)` of an absolute file path inside a layer.
fn place_of(layers: &[Layer], file: &Path) -> Option<(usize, String)> {
    layers.iter().enumerate().find_map(|(i, l)| {
        let rel = file.strip_prefix(&l.root).ok()?;
        Some((i, rel.to_str()?.to_owned()))
    })
}

fn edit_href(layer: usize, rel: &str) -> String {
    format!("/skills/edit?layer={layer}&file={}", urlencode(rel))
}

pub async fn list(State(board): State<Arc<Board>>) -> Response {
    blocking(&board, |b| list_page(b).into_response()).await
}

fn list_page(b: &Board) -> Markup {
    let (layers, set, located) = match load(b) {
        Ok(l) => l,
        Err(e) => {
            return layout(
                "Skills",
                Nav::Skills,
                html! { p class="problem" role="alert" { "The skill layers cannot be read: " (e) } },
            );
        }
    };
    let mut order: Vec<usize> = (0..layers.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(layers[i].priority));
    let link_of = |file: &str| place_of(&layers, Path::new(file)).map(|(i, rel)| edit_href(i, &rel));
    let installed = installed(b);
    layout(
        "Skills",
        Nav::Skills,
        html! {
            section aria-labelledby="layers-h" {
                h2 id="layers-h" { "Layers, highest priority first" }
                @if layers.is_empty() {
                    p { "No skill layer is configured. Start the board with " code { "--skills DIR" } " or write ~/.vitaecontext/skills.yaml." }
                }
                ol class="layers" {
                    @for &i in &order { li { strong { (layers[i].name) } " priority " (layers[i].priority) " · " (shown(&layers[i].root)) } }
                }
            }
            section aria-labelledby="served-h" {
                h2 id="served-h" { "Skills served" }
                table class="skills" {
                    caption { "Each served skill, where it is defined and what it shadows" }
                    thead { tr { th scope="col" { "Id" } th scope="col" { "Kind" } th scope="col" { "Layer" } th scope="col" { "Shadows" } th scope="col" { "Actions" } } }
                    tbody {
                        @for e in set.entries() {
                            tr {
                                td { code { (e.skill.id) } }
                                td { (e.skill.kind.as_str()) }
                                td { (e.origin.layer) " (" (e.origin.priority) ")" }
                                td {
                                    @if e.shadows.is_empty() { "—" }
                                    @for s in &e.shadows { div { (s.file) " (layer " (s.layer) ", " (s.priority) ")" } }
                                }
                                td {
                                    @if let Some(l) = located.of(e).and_then(|l| place_of(&layers, &l.file)) {
                                        a href=(edit_href(l.0, &l.1)) aria-label={ "Edit " (e.skill.id) } { "Edit" } " · "
                                    }
                                    a href={ "/skills/preview?id=" (urlencode(&e.skill.id)) } aria-label={ "Preview " (e.skill.id) } { "Preview" }
                                }
                            }
                        }
                    }
                }
            }
            @if !set.conflicts().is_empty() || !set.refused().is_empty() || !set.skipped().is_empty() {
                section aria-labelledby="problems-h" {
                    h2 id="problems-h" { "Problems" }
                    ul class="findings" {
                        @for c in set.conflicts() {
                            li class="error" {
                                span class="badge" { "conflict" } " " (c.to_string())
                                @for o in &c.files { @if let Some(href) = link_of(&o.file) { " " a href=(href) { "Edit " (o.file) } } }
                            }
                        }
                        @for r in set.refused() { li class="error" { span class="badge" { "refused" } " " (r.to_string()) } }
                        @for s in set.skipped() {
                            li class="error" {
                                span class="badge" { "not a skill" } " " (s.file) @if let Some(line) = s.line { ":" (line) } ": " (s.reason)
                                @if let Some(href) = link_of(&s.file) { " " a href=(href) { "Edit" } }
                            }
                        }
                    }
                }
            }
            section aria-labelledby="installed-h" {
                h2 id="installed-h" { "Installed skills" }
                @if installed.is_empty() { p { "No skills-lock.json lists installed skills." } }
                @else {
                    table {
                        caption { "Skills installed with `vitaecontext skills install`, against their lock" }
                        thead { tr { th scope="col" { "Id" } th scope="col" { "Source" } th scope="col" { "Layer" } th scope="col" { "Matches the lock" } } }
                        tbody {
                            @for (id, source, layer, state) in &installed {
                                tr { td { code { (id) } } td { (source) } td { (layer) } td { (state) } }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// Each installed skill of the user's and the project's lock: id, source, layer, and whether
/// its files are as the lock records them.
fn installed(b: &Board) -> Vec<(String, String, String, String)> {
    use crate::usecase::skills_install as install;
    let mut out = Vec::new();
    for (project, user) in [(false, true), (true, false)] {
        let Ok(scope) = install::scope(&*b.fs, &b.sources, project, user) else { continue };
        if b.fs.metadata(&scope.lock_path).is_err() {
            continue;
        }
        let lock = match install::read_lock(&*b.fs, &scope) {
            Ok(l) => l,
            Err(r) => {
                out.push((
                    String::new(),
                    shown(&scope.lock_path),
                    String::new(),
                    format!("the lock cannot be read: {}", r.message),
                ));
                continue;
            }
        };
        for (id, entry) in &lock.skills {
            let state = match install::drift_of(&*b.fs, &scope, id, entry) {
                Ok(d) if d.is_empty() => "yes".to_owned(),
                Ok(d) => format!(
                    "no: {}",
                    d.iter().map(|(p, k)| format!("{p} ({})", k.as_str())).collect::<Vec<_>>().join(", ")
                ),
                Err(r) => format!("cannot tell: {}", r.message),
            };
            out.push((id.clone(), entry.source.clone(), entry.layer.clone(), state));
        }
    }
    out
}

#[derive(Debug, Deserialize)]
pub struct FileRef {
    layer: usize,
    file: String,
}

/// The file a form names, checked: a configured layer, a plain relative path, a skill file
/// name, a regular file reached with no symlink. `Err`: the page to answer.
fn resolve(b: &Board, layer: usize, file: &str) -> Result<(Layer, PathBuf, SkillFormat), Response> {
    let layers = usecase::resolve_layers(&*b.fs, &b.sources.skill_sources(&*b.fs))
        .map_err(|e| error_page(StatusCode::SERVICE_UNAVAILABLE, "No skill layers", &e.to_string()))?;
    let Some(l) = layers.get(layer) else {
        return Err(error_page(
            StatusCode::NOT_FOUND,
            "No such layer",
            "The skill layers changed; go back to the Skills page.",
        ));
    };
    let rel = PathBuf::from(file);
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let format = SkillFormat::of_file_name(name);
    if ports::fs::beneath_names(&rel).is_err() || format.is_none() {
        return Err(error_page(
            StatusCode::BAD_REQUEST,
            "Not a skill file",
            "Only a skill file (.yaml, .yml, .json or SKILL.md) inside a configured layer can be edited here.",
        ));
    }
    match b.fs.metadata_beneath(&l.root, &rel) {
        Ok(m) if m.kind == ports::fs::FileKind::File => {}
        _ => {
            return Err(error_page(
                StatusCode::NOT_FOUND,
                "No such skill file",
                "That file is not in the layer (or is reached through a symlink, which the board does not follow).",
            ));
        }
    }
    Ok((l.clone(), rel, format.unwrap_or(SkillFormat::Yaml)))
}

fn read(b: &Board, layer: &Layer, rel: &Path) -> Result<Vec<u8>, Response> {
    b.fs.read_beneath(&layer.root, rel, MAX_SKILL_BYTES)
        .map(|(bytes, _)| bytes)
        .map_err(|e| error_page(StatusCode::UNPROCESSABLE_ENTITY, "The skill file cannot be read", &e.to_string()))
}

pub async fn edit(State(board): State<Arc<Board>>, Query(f): Query<FileRef>) -> Response {
    blocking(&board, move |b| {
        let (layer, rel, _) = match resolve(b, f.layer, &f.file) {
            Ok(r) => r,
            Err(page) => return page,
        };
        let bytes = match read(b, &layer, &rel) {
            Ok(bytes) => bytes,
            Err(page) => return page,
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        editor(b, f.layer, &layer, &rel, &text, &sha256_hex(&bytes), None).into_response()
    })
    .await
}

/// The editor page, with a message or problems above the text.
fn editor(b: &Board, index: usize, layer: &Layer, rel: &Path, text: &str, hash: &str, above: Option<Markup>) -> Markup {
    let path = layer.root.join(rel);
    let backups = crate::usecase::backups_of(&*b.fs, &path);
    let ids: Vec<String> = match domain::skills::parse::parse_skill(
        SkillFormat::of_file_name(rel.file_name().and_then(|n| n.to_str()).unwrap_or_default())
            .unwrap_or(SkillFormat::Yaml),
        text,
    ) {
        Ok(s) => vec![s.id],
        Err(_) => Vec::new(),
    };
    let rel_s = rel.to_string_lossy().into_owned();
    layout(
        &format!("Edit {rel_s}"),
        Nav::Skills,
        html! {
            p { "Layer " strong { (layer.name) } " · " (shown(&path)) }
            @if let Some(above) = above { (above) }
            form method="post" action="/skills/save" class="editor" {
                input type="hidden" name="layer" value=(index);
                input type="hidden" name="file" value=(rel_s);
                input type="hidden" name="hash" value=(hash);
                label for="content" { "The skill file" }
                textarea id="content" name="content" rows="20" spellcheck="false" { (text) }
                button type="submit" id="save" { "Check and save" }
            }
            @for id in &ids { p { a href={ "/skills/preview?id=" (urlencode(id)) } id="preview-link" { "Preview " (id) } } }
            section aria-labelledby="backups-h" {
                h2 id="backups-h" { "Backups" }
                @if backups.is_empty() { p { "None yet: each save keeps the text it replaces (the newest 10)." } }
                ul {
                    @for backup in backups.iter().rev() {
                        @let name = backup.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                        li {
                            form method="post" action="/skills/restore" class="inline" {
                                input type="hidden" name="layer" value=(index);
                                input type="hidden" name="file" value=(rel_s);
                                input type="hidden" name="backup" value=(name);
                                code { (name) } " "
                                button type="submit" aria-label={ "Restore " (name) } { "Restore" }
                            }
                        }
                    }
                }
            }
        },
    )
}

#[derive(Debug, Deserialize)]
pub struct SaveForm {
    layer: usize,
    file: String,
    hash: String,
    content: String,
}

pub async fn save(State(board): State<Arc<Board>>, Form(f): Form<SaveForm>) -> Response {
    blocking(&board, move |b| {
        let page = save_file(b, &f);
        b.check_soon();
        page
    })
    .await
}

fn save_file(b: &Board, f: &SaveForm) -> Response {
    let (layer, rel, format) = match resolve(b, f.layer, &f.file) {
        Ok(r) => r,
        Err(page) => return page,
    };
    // Browsers send a textarea's lines with CRLF; the file keeps the line ends it had.
    let content = f.content.replace("\r\n", "\n");
    if let Err(problems) = domain::skills::parse::parse_skill(format, &content) {
        let above = html! {
            div class="problem" role="alert" {
                p { "Not saved: the file would not load as a skill." }
                ul { @for p in &problems { li { @if let Some(line) = p.line() { "Line " (line) ": " } (p.message) } } }
            }
        };
        return (StatusCode::UNPROCESSABLE_ENTITY, editor(b, f.layer, &layer, &rel, &content, &f.hash, Some(above)))
            .into_response();
    }
    let current = match read(b, &layer, &rel) {
        Ok(bytes) => bytes,
        Err(page) => return page,
    };
    if sha256_hex(&current) != f.hash {
        return conflict(b, f.layer, &layer, &rel, &current, &content);
    }
    let path = layer.root.join(rel.clone());
    if current == content.as_bytes() {
        return Redirect::to(&format!("{}&saved=0", edit_href(f.layer, &f.file))).into_response();
    }
    if let Err(e) = crate::usecase::write_backup(&*b.fs, &*b.clock, &path, &current) {
        return error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Not saved",
            &format!("The backup could not be written, so nothing was changed: {e}"),
        );
    }
    match b.fs.replace_if_unchanged(&path, &current, content.as_bytes(), MAX_SKILL_BYTES) {
        Ok(true) => Redirect::to(&edit_href(f.layer, &f.file)).into_response(),
        Ok(false) => match read(b, &layer, &rel) {
            Ok(now) => conflict(b, f.layer, &layer, &rel, &now, &content),
            Err(page) => page,
        },
        Err(e) => {
            error_page(StatusCode::INTERNAL_SERVER_ERROR, "Not saved", &format!("The file could not be written: {e}"))
        }
    }
}

/// 409: the file changed since it was opened. Shows the diff from the file as it is now to the
/// text being saved; the editor then holds that text over the current file's hash, so saving
/// again replaces the other change knowingly.
fn conflict(b: &Board, index: usize, layer: &Layer, rel: &Path, current: &[u8], yours: &str) -> Response {
    let theirs = String::from_utf8_lossy(current);
    let diff = similar::TextDiff::from_lines(theirs.as_ref(), yours);
    let above = html! {
        div class="problem conflict" role="alert" id="conflict" {
            p { strong { "Not saved: the file changed since you opened it." } " Below, what saving your text would change in the file as it is now. Save again to replace it, or reload the page to start from it." }
            pre class="diff" aria-label="Differences from the file on disk to your text" {
                @for change in diff.iter_all_changes() {
                    @let (class, sign) = match change.tag() { similar::ChangeTag::Delete => ("del", "-"), similar::ChangeTag::Insert => ("ins", "+"), similar::ChangeTag::Equal => ("eq", " ") };
                    span class=(class) { (sign) (change.value()) }
                }
            }
        }
    };
    (StatusCode::CONFLICT, editor(b, index, layer, rel, yours, &sha256_hex(current), Some(above))).into_response()
}

#[derive(Debug, Deserialize)]
pub struct RestoreForm {
    layer: usize,
    file: String,
    backup: String,
}

pub async fn restore(State(board): State<Arc<Board>>, Form(f): Form<RestoreForm>) -> Response {
    blocking(&board, move |b| {
        let (layer, rel, _) = match resolve(b, f.layer, &f.file) {
            Ok(r) => r,
            Err(page) => return page,
        };
        let path = layer.root.join(&rel);
        // Only a backup of this very file, as listed beside it.
        let Some(backup) = crate::usecase::backups_of(&*b.fs, &path)
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy() == f.backup))
        else {
            return error_page(
                StatusCode::NOT_FOUND,
                "No such backup",
                "That backup is not beside this file any more.",
            );
        };
        let Some(backup_rel) = rel.parent().map(|p| p.join(&f.backup)) else {
            return error_page(StatusCode::BAD_REQUEST, "No such backup", "That backup is not beside this file.");
        };
        let old = match b.fs.read_beneath(&layer.root, &backup_rel, MAX_SKILL_BYTES) {
            Ok((bytes, _)) => bytes,
            Err(e) => {
                return error_page(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "The backup cannot be read",
                    &format!("{}: {e}", backup.display()),
                );
            }
        };
        let current = match read(b, &layer, &rel) {
            Ok(bytes) => bytes,
            Err(page) => return page,
        };
        if let Err(e) = crate::usecase::write_backup(&*b.fs, &*b.clock, &path, &current) {
            return error_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Not restored",
                &format!("The backup of the current text could not be written, so nothing was changed: {e}"),
            );
        }
        match b.fs.replace_if_unchanged(&path, &current, &old, MAX_SKILL_BYTES) {
            Ok(true) => Redirect::to(&edit_href(f.layer, &f.file)).into_response(),
            Ok(false) => error_page(
                StatusCode::CONFLICT,
                "Not restored",
                "The file changed meanwhile; reload it and restore again.",
            ),
            Err(e) => error_page(StatusCode::INTERNAL_SERVER_ERROR, "Not restored", &e.to_string()),
        }
    })
    .await
}

pub async fn preview(State(board): State<Arc<Board>>, Query(q): Query<Vec<(String, String)>>) -> Response {
    blocking(&board, move |b| preview_page(b, &q)).await
}

fn preview_page(b: &Board, q: &[(String, String)]) -> Response {
    let Some(id) = q.iter().find(|(k, _)| k == "id").map(|(_, v)| v.clone()) else {
        return error_page(StatusCode::BAD_REQUEST, "Which skill?", "Open a preview from the Skills page.");
    };
    let (_, set, _) = match load(b) {
        Ok(l) => l,
        Err(e) => return error_page(StatusCode::SERVICE_UNAVAILABLE, "No skill layers", &e),
    };
    let Some(entry) = set.get(&id) else {
        return error_page(StatusCode::NOT_FOUND, "No such skill", &format!("No served skill has the id {id:?}."));
    };
    let given: Map<String, Value> =
        q.iter().filter_map(|(k, v)| Some((k.strip_prefix("arg.")?.to_owned(), Value::String(v.clone())))).collect();
    let asked = q.iter().any(|(k, _)| k == "go");
    let packets = b.served.packets();
    let rendered = asked.then(|| match entry.skill.kind {
        domain::skills::SkillType::Prompt => {
            set.render_prompt(&id, &usecase::args_from_json(Some(&given)), &packets).map_err(|e| e.message())
        }
        _ => set
            .call_tool(&id, &usecase::args_from_json(Some(&given)), &packets)
            .map(|o| o.text())
            .map_err(|e| e.message()),
    });
    layout(
        &format!("Preview {id}"),
        Nav::Skills,
        html! {
            p { (entry.description()) }
            form method="get" action="/skills/preview" class="preview" {
                input type="hidden" name="id" value=(id);
                input type="hidden" name="go" value="1";
                @for a in &entry.skill.arguments {
                    @let value = given.get(&a.name).and_then(Value::as_str).unwrap_or_default();
                    label for={ "arg-" (a.name) } { (a.name) @if a.required { " (required)" } }
                    input type="text" id={ "arg-" (a.name) } name={ "arg." (a.name) } value=(value) required[a.required];
                    @if !a.description.is_empty() { p class="hint" { (a.description) } }
                }
                button type="submit" id="render" { "Render" }
            }
            @match &rendered {
                None => {}
                Some(Ok(text)) => { h2 { "Rendered" } pre id="preview" class="rendered" { (text) } }
                Some(Err(e)) => { p class="problem" role="alert" { (e) } }
            }
        },
    )
    .into_response()
}
