//! The skills extension (`io.modelcontextprotocol/skills`, modelcontextprotocol/ext-skills
//! `specification/stable/skills.mdx`), 2026-07-28 only (`Revision::has_skills_extension`):
//! `skills/list`, `skills/get`, `resources/read` of `skill://<name>/<path>` and
//! `resources/directory/read`. Each served skill is an Agent Skills folder
//! (`usecase::agent_skills`): its `SKILL.md` and supporting files, each with the size and
//! digest of the bytes `resources/read` serves.

use serde_json::{Value, json};

use domain::skills::SkillSet;
use domain::skills::agent::{self, Child, SKILL_MD, SkillUri, UriError};

use super::jsonrpc::{RpcError, code};
use super::pagination::{PAGE_SIZE, lazy_page_in, page_in};
use super::params::{DirectoryReadParams, ListParams, ReadParams};
use super::served::Served;
use crate::usecase::agent_skills::{self, Bundle, BundleError};
use crate::usecase::skills::{Locations, value_to_json};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// Its settings: `resources/directory/read` is implemented.
pub fn settings() -> Value {
    json!({ "directoryRead": true })
}

/// The skills served now, with where their files are; none without a skill layer.
fn snapshot(m: &Served) -> (std::sync::Arc<SkillSet>, std::sync::Arc<Locations>) {
    m.skills_located().unwrap_or_default()
}

/// An error of the extension: unknown or refused skills and files are invalid params (-32602,
/// "Error Handling"), a file that cannot be read an internal error (-32603), each naming the
/// URI asked for in `data`.
fn error(uri: &str, e: &BundleError) -> RpcError {
    let code = match e {
        BundleError::Unknown(_) | BundleError::Refused { .. } => code::INVALID_PARAMS,
        BundleError::Unreadable { .. } => {
            tracing::warn!("skills extension: {e}");
            code::INTERNAL_ERROR
        }
    };
    RpcError::new(code, e.to_string()).with_data(json!({ "uri": uri }))
}

fn invalid(uri: &str, message: impl std::fmt::Display) -> RpcError {
    RpcError::new(code::INVALID_PARAMS, message.to_string()).with_data(json!({ "uri": uri }))
}

fn parse_uri(uri: &str) -> Result<SkillUri, RpcError> {
    SkillUri::parse(uri).map_err(|e| match e {
        UriError::NotSkill => invalid(uri, format!("{uri} is not a skill resource of this server")),
        UriError::Malformed => invalid(uri, format!("{uri}: {e}")),
    })
}

/// A `Skill` entry: `uri` (of `SKILL.md`), `frontmatter` (every field, as written) and
/// `resources`, the complete manifest.
fn entry(b: &Bundle) -> Value {
    json!({
        "uri": agent::skill_md_uri(&b.name),
        "frontmatter": value_to_json(&b.front_matter),
        "resources": b.files.iter().map(|f| json!({
            "uri": agent::file_uri(&b.name, &f.path),
            "digest": f.digest,
            "size": f.size,
        })).collect::<Vec<_>>(),
    })
}

/// `skills/list`: every served skill that is an Agent Skill, in listing order, a page at a time
/// (the page is taken over the skills whose name and kind allow it, so cursors stay put). A
/// skill whose folder turns out not to be servable (its front matter, its size, a file that
/// cannot be read) is left out of its page: the extension allows a partial listing, and
/// `skills/get` on it says why.
pub fn list(m: &Served, params: ListParams) -> Result<Value, RpcError> {
    let (set, locations) = snapshot(m);
    let candidates: Vec<&str> =
        set.entries().iter().filter(|e| agent::check_entry(e).is_ok()).map(|e| e.skill.id.as_str()).collect();
    let p = page_in(Some("skills/list"), candidates.len(), params.cursor.as_deref(), PAGE_SIZE)
        .map_err(RpcError::invalid_params)?;
    let skills: Vec<Value> = candidates[p.range]
        .iter()
        .filter_map(|name| match m.agent_skills().bundle(m.fs(), &set, &locations, name) {
            Ok(b) => Some(entry(&b)),
            Err(e) => {
                tracing::debug!("skills/list leaves out {name}: {e}");
                None
            }
        })
        .collect();
    let mut result = json!({ "skills": skills });
    if let Some(next) = p.next_cursor {
        result["nextCursor"] = json!(next);
    }
    Ok(result)
}

/// The bundle of the skill a URI names.
fn bundle_of(m: &Served, uri: &str, name: &str) -> Result<Bundle, RpcError> {
    let (set, locations) = snapshot(m);
    m.agent_skills().bundle(m.fs(), &set, &locations, name).map_err(|e| error(uri, &e))
}

/// `skills/get` `{uri}`: the entry of the skill whose `SKILL.md` `uri` names, listed or not.
pub fn get(m: &Served, params: ReadParams) -> Result<Value, RpcError> {
    let uri = params.uri;
    let u = parse_uri(&uri)?;
    if !u.is_skill_md() {
        return Err(invalid(&uri, format!("{uri} is not the URI of a skill's SKILL.md (skill://<name>/SKILL.md)")));
    }
    Ok(json!({ "skill": entry(&bundle_of(m, &uri, &u.name)?) }))
}

/// `resources/read` of a file of a skill: its bytes as they are, as `text` when they are UTF-8
/// and as base64 `blob` otherwise, with the MIME type its extension names.
pub fn read(m: &Served, uri: &str) -> Result<Value, RpcError> {
    let u = parse_uri(uri)?;
    let b = bundle_of(m, uri, &u.name)?;
    let relative = u.relative();
    let not_a_file = || invalid(uri, format!("{uri} is not a file of skill {:?}", b.name));
    let bytes = match m.agent_skills().read(m.fs(), &b, &relative) {
        None => return Err(not_a_file()),
        Some(read) => read.map_err(|e| error(uri, &e))?,
    };
    let mime = agent::mime_type(&relative);
    let content = match String::from_utf8(bytes) {
        Ok(text) => json!({ "uri": uri, "mimeType": mime, "text": text }),
        Err(e) => {
            json!({ "uri": uri, "mimeType": mime, "blob": domain::skills::install::digest::base64(e.as_bytes()) })
        }
    };
    Ok(json!({ "contents": [content] }))
}

/// `resources/directory/read` `{uri, cursor?}`: the direct children of a folder of a skill
/// (`skill://<name>` is its root), files with their MIME type and sub-folders as
/// `inode/directory`, a page at a time. A folder that holds no served file is an empty list.
pub fn directory_read(m: &Served, params: DirectoryReadParams) -> Result<Value, RpcError> {
    let uri = params.uri;
    let u = parse_uri(&uri)?;
    let b = bundle_of(m, &uri, &u.name)?;
    let children = match agent::children(b.paths(), &u.path) {
        Some(children) => children,
        // A folder with no file served in it: "an empty directory yields an empty array".
        None if agent_skills::is_empty_folder(m.fs(), &b, &u.path) => Vec::new(),
        None => return Err(invalid(&uri, format!("{uri} is not a directory resource of skill {:?}", b.name))),
    };
    // Scoped by the folder's URI: a cursor of another list or folder is refused.
    lazy_page_in(Some(uri.as_str()), params.cursor.as_deref(), "resources", children.len(), |i| match &children[i] {
        Child::Dir(dir) => json!({
            "uri": agent::dir_uri(&b.name, dir),
            "name": children[i].name(),
            "mimeType": "inode/directory",
        }),
        Child::File(path) if path == SKILL_MD => skill_md_resource(&b),
        Child::File(path) => json!({
            "uri": agent::file_uri(&b.name, path),
            "name": children[i].name(),
            "mimeType": agent::mime_type(path),
        }),
    })
}

/// A skill's `SKILL.md` as a `Resource`: `name` and `description` from its front matter
/// ("Resource Metadata").
fn skill_md_resource(b: &Bundle) -> Value {
    json!({
        "uri": agent::skill_md_uri(&b.name),
        "name": b.name,
        "description": b.front_matter.get("description").and_then(|d| d.as_str()).unwrap_or_default(),
        "mimeType": "text/markdown",
    })
}

/// The `SKILL.md` of each skill `skills/list` lists, as `resources/list` entries (2026-07-28):
/// only a skill whose bundle can be built now (the same check, and the same cached digests, as
/// `skills/list`), so every URI listed reads (found in review: a skill over the limits, or with
/// a front matter that does not name it, was listed and answered -32602). `name` is the
/// skill's (its id), `description` the listed one, `title` its display name.
pub fn resources(m: &Served) -> Vec<Value> {
    let Some((set, locations)) = m.skills_located() else { return Vec::new() };
    set.entries()
        .iter()
        .filter(|e| agent::check_entry(e).is_ok())
        .filter(|e| m.agent_skills().bundle(m.fs(), &set, &locations, &e.skill.id).is_ok())
        .map(|e| {
            json!({
                "uri": agent::skill_md_uri(&e.skill.id),
                "name": e.skill.id,
                "title": e.skill.name,
                "description": e.description(),
                "mimeType": "text/markdown",
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::params;
    use super::*;

    #[test]
    fn params_are_parsed_typed() {
        let p: DirectoryReadParams =
            params::parse(json!({"uri": "skill://a", "cursor": "o:100"}).as_object().unwrap().clone()).unwrap();
        assert_eq!((p.uri.as_str(), p.cursor.as_deref()), ("skill://a", Some("o:100")));
    }
}
