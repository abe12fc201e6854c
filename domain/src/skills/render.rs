//! Single-pass template rendering: `{{name}}` placeholders are replaced from one lookup, and the
//! replacement text is never scanned again, so an argument value that contains `{{...}}` stays
//! as written (skill-central replaced key by key, so a value could inject another placeholder).

use std::borrow::Cow;

/// Whether `name` can be a placeholder: any text without braces or control characters, so
/// that an argument named `名前`, `résumé` or `a b` is filled as skill-central fills it (it
/// replaces `{{key}}` for whatever key is given). Braces are left out so that `{{{x}}}` still
/// finds `{{x}}`.
fn is_placeholder_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| matches!(c, '{' | '}') || c.is_control())
}

/// Renders `template`: each `{{ name }}` (spaces inside allowed) for which `lookup` answers is
/// replaced; anything else, including `{{` without a closing `}}`, is copied unchanged.
pub fn render<'a>(template: &str, lookup: &mut dyn FnMut(&str) -> Option<Cow<'a, str>>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after.find("}}");
        let replaced = close.and_then(|close| {
            let name = after[..close].trim_matches(|c| c == ' ' || c == '\t');
            if is_placeholder_name(name) { lookup(name).map(|v| (v, close)) } else { None }
        });
        match replaced {
            Some((value, close)) => {
                out.push_str(&value);
                rest = &after[close + 2..];
            }
            None => {
                // Copy one brace and scan again from the next one, so `{{{x}}}` still finds `{{x}}`.
                out.push('{');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The placeholder names a template uses, in order of first use, each once.
pub fn placeholders(template: &str) -> Vec<String> {
    let mut seen = Vec::new();
    render(template, &mut |name| {
        if !seen.iter().any(|s: &String| s == name) {
            seen.push(name.to_owned());
        }
        None
    });
    seen
}
