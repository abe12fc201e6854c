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
    render_capped(template, lookup, usize::MAX).0
}

/// [`render`], stopping once the text reaches `cap` bytes (cut at a character boundary): a
/// template of many placeholders each filled with a large value asked for gigabytes (400
/// `{{career_context}}` against a 16 MiB context: 4.3 GB). The flag says whether it was cut.
pub fn render_capped<'a>(
    template: &str,
    lookup: &mut dyn FnMut(&str) -> Option<Cow<'a, str>>,
    cap: usize,
) -> (String, bool) {
    let mut out = String::with_capacity(template.len().min(cap));
    // Appends `piece` up to the cap; false once the cap is reached.
    let push = |out: &mut String, piece: &str| -> bool {
        let room = cap.saturating_sub(out.len());
        if piece.len() <= room {
            out.push_str(piece);
            return true;
        }
        let mut cut = room;
        while !piece.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push_str(&piece[..cut]);
        false
    };
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        if !push(&mut out, &rest[..open]) {
            return (out, true);
        }
        let after = &rest[open + 2..];
        let close = after.find("}}");
        let replaced = close.and_then(|close| {
            let name = after[..close].trim_matches(|c| c == ' ' || c == '\t');
            if is_placeholder_name(name) { lookup(name).map(|v| (v, close)) } else { None }
        });
        match replaced {
            Some((value, close)) => {
                if !push(&mut out, &value) {
                    return (out, true);
                }
                rest = &after[close + 2..];
            }
            None => {
                // Copy one brace and scan again from the next one, so `{{{x}}}` still finds `{{x}}`.
                out.push('{');
                rest = &rest[open + 1..];
            }
        }
    }
    let whole = push(&mut out, rest);
    (out, !whole)
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
