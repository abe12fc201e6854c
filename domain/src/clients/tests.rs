//! Edits of each configuration format: our entry in, our entry out, everything else untouched.

use std::path::PathBuf;

use super::*;

fn entry() -> Entry {
    Entry {
        command: "/opt/vitae context/bin/vitaecontext".into(),
        args: vec!["mcp".into(), "--context".into(), "/home/ada/.vitaecontext/career-context.md".into()],
    }
}

fn changed(e: Result<Edit, EditError>) -> String {
    match e.expect("edit") {
        Edit::Changed(t) => t,
        Edit::Unchanged => panic!("expected a change"),
    }
}

/// A VS Code `mcp.json` as people keep it: comments, another server, inputs, trailing comma.
const VSCODE: &str = r#"{
	// Servers I use every day.
	"servers": {
		/* GitHub, through Docker */
		"github": {
			"type": "stdio",
			"command": "docker",
			"args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"], // pinned later
		},
	},
	"inputs": [
		{ "type": "promptString", "id": "token", "password": true }
	]
}
"#;

const CODEX: &str = r#"# Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]   # docs lookup

[profiles.fast]
model = "gpt-5-mini"

[tui]
notifications = true
"#;

#[test]
fn vscode_register_keeps_comments_and_other_servers() {
    let out = changed(register(Client::Vscode, VSCODE, &entry()));
    insta::assert_snapshot!("vscode_mcp_json_registered", out);
    // Everything before our entry is byte for byte the same, and so is the tail after it.
    let github_end = VSCODE.find("\t\t},\n").unwrap() + 4;
    assert_eq!(&out[..github_end], &VSCODE[..github_end]);
    assert!(out.ends_with(&VSCODE[VSCODE.find("\t},\n\t\"inputs\"").unwrap()..]), "{out}");
    assert_eq!(register(Client::Vscode, &out, &entry()).unwrap(), Edit::Unchanged, "registering twice");
    assert_eq!(find(Client::Vscode, &out).unwrap(), Some(entry()));
    // Removing ours gives the original file back.
    assert_eq!(changed(remove(Client::Vscode, &out)), VSCODE);
    assert_eq!(remove(Client::Vscode, VSCODE).unwrap(), Edit::Unchanged);
}

#[test]
fn vscode_entry_is_typed_and_under_servers() {
    let out = changed(register(Client::Vscode, "", &entry()));
    assert!(out.contains("\"servers\""), "{out}");
    assert!(out.contains("\"type\": \"stdio\""), "{out}");
    let out = changed(register(Client::Cursor, "", &entry()));
    assert!(out.contains("\"mcpServers\"") && !out.contains("\"type\""), "{out}");
    assert!(out.ends_with("}\n"), "{out:?}");
}

#[test]
fn codex_register_keeps_other_tables() {
    let out = changed(register(Client::Codex, CODEX, &entry()));
    insta::assert_snapshot!("codex_config_toml_registered", out);
    // Our table lands beside the other server; every other byte is where it was.
    let ours = "[mcp_servers.vitaecontext]\ncommand = \"/opt/vitae context/bin/vitaecontext\"\n\
                args = [\"mcp\", \"--context\", \"/home/ada/.vitaecontext/career-context.md\"]\n\n";
    assert_eq!(out.replacen(ours, "", 1), CODEX);
    assert_eq!(register(Client::Codex, &out, &entry()).unwrap(), Edit::Unchanged);
    assert_eq!(find(Client::Codex, &out).unwrap(), Some(entry()));
    assert_eq!(changed(remove(Client::Codex, &out)), CODEX);
    assert_eq!(remove(Client::Codex, CODEX).unwrap(), Edit::Unchanged);
}

#[test]
fn codex_new_file_has_only_our_table() {
    let out = changed(register(Client::Codex, "", &entry()));
    assert_eq!(
        out,
        "[mcp_servers.vitaecontext]\ncommand = \"/opt/vitae context/bin/vitaecontext\"\n\
         args = [\"mcp\", \"--context\", \"/home/ada/.vitaecontext/career-context.md\"]\n"
    );
}

#[test]
fn an_existing_entry_is_updated_in_place_keeping_its_other_keys() {
    let json = "{\n  \"mcpServers\": {\n    \"vitaecontext\": {\n      \"command\": \"/old/vitaecontext\",\n      \"args\": [\"mcp\"],\n      \"disabled\": false\n    },\n    \"other\": { \"command\": \"x\" }\n  }\n}\n";
    let out = changed(register(Client::Cline, json, &entry()));
    assert!(out.contains("\"disabled\": false"), "{out}");
    assert!(out.contains("\"other\": { \"command\": \"x\" }"), "{out}");
    assert_eq!(find(Client::Cline, &out).unwrap(), Some(entry()));

    let toml = "[mcp_servers.vitaecontext]\ncommand = \"/old\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\n";
    let out = changed(register(Client::Codex, toml, &entry()));
    assert!(out.contains("startup_timeout_sec = 20"), "{out}");
    assert_eq!(find(Client::Codex, &out).unwrap(), Some(entry()));
}

#[test]
fn remove_takes_only_our_entry() {
    let json = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    \"vitaecontext\": {\"command\": \"v\"},\n    \"b\": {\"command\": \"b\"}\n  },\n  \"theme\": \"dark\"\n}\n";
    let out = changed(remove(Client::ClaudeDesktop, json));
    assert_eq!(
        out,
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n    \"b\": {\"command\": \"b\"}\n  },\n  \"theme\": \"dark\"\n}\n"
    );
    assert_eq!(find(Client::ClaudeDesktop, &out).unwrap(), None);
}

#[test]
fn unparseable_files_are_refused_with_their_line() {
    let broken = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n    \"b\": {}\n  }\n}\n";
    let Err(EditError::Parse { error, .. }) = register(Client::Cursor, broken, &entry()) else { panic!() };
    // The missing comma is reported where it belongs: after line 3's value.
    assert_eq!((error.message.as_str(), error.line, error.column), ("Expected comma", 3, 26), "{error:?}");
    let unterminated = "{\n  \"mcpServers\": {\n";
    assert!(matches!(remove(Client::Cursor, unterminated), Err(EditError::Parse { .. })));

    // A comment is fine in VS Code's dialect but not in Claude Desktop's strict JSON.
    let commented = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
    assert!(register(Client::Vscode, commented, &entry()).is_ok());
    let Err(EditError::Parse { error, format }) = register(Client::ClaudeDesktop, commented, &entry()) else {
        panic!()
    };
    assert_eq!((format, error.line, error.column), ("JSON", 2, 3), "{error:?}");

    let toml = "model = \"x\"\n[mcp_servers\ncommand = 1\n";
    let Err(EditError::Parse { error, format }) = register(Client::Codex, toml, &entry()) else { panic!() };
    assert_eq!((format, error.line), ("TOML", 2), "{error:?}");
    assert!(remove(Client::Codex, toml).is_err());
}

#[test]
fn a_servers_key_of_another_shape_is_refused() {
    assert!(matches!(register(Client::Cursor, "{\"mcpServers\": []}", &entry()), Err(EditError::Shape(_))));
    assert!(matches!(register(Client::Cursor, "[]", &entry()), Err(EditError::Shape(_))));
    assert!(matches!(register(Client::Codex, "mcp_servers = 3\n", &entry()), Err(EditError::Shape(_))));
}

#[test]
fn inline_codex_tables_take_the_entry_too() {
    let toml = "mcp_servers = { other = { command = \"o\" } }\n";
    let out = changed(register(Client::Codex, toml, &entry()));
    assert_eq!(find(Client::Codex, &out).unwrap(), Some(entry()));
    assert!(out.contains("other = { command = \"o\" }"), "{out}");
}

#[test]
fn paths_with_quotes_and_backslashes_survive_a_round_trip() {
    let e = Entry { command: r#"C:\Program Files\"vc"\vitaecontext.exe"#.into(), args: vec!["mcp".into()] };
    for c in [Client::Cursor, Client::Codex] {
        let out = changed(register(c, "", &e));
        assert_eq!(find(c, &out).unwrap(), Some(e.clone()), "{out}");
    }
}

fn env(os: Os) -> Env {
    Env {
        os,
        home: Some(PathBuf::from("/h")),
        appdata: Some(PathBuf::from("/appdata")),
        xdg_config_home: None,
        codex_home: None,
    }
}

#[test]
fn locations_per_os() {
    let p = |c: Client, os| c.config_path(&env(os)).unwrap();
    assert_eq!(
        p(Client::ClaudeDesktop, Os::Macos),
        PathBuf::from("/h/Library/Application Support/Claude/claude_desktop_config.json")
    );
    assert_eq!(p(Client::ClaudeDesktop, Os::Linux), PathBuf::from("/h/.config/Claude/claude_desktop_config.json"));
    assert_eq!(p(Client::ClaudeDesktop, Os::Windows), PathBuf::from("/appdata/Claude/claude_desktop_config.json"));
    assert_eq!(p(Client::ClaudeCode, Os::Linux), PathBuf::from("/h/.claude.json"));
    assert_eq!(p(Client::Vscode, Os::Linux), PathBuf::from("/h/.config/Code/User/mcp.json"));
    assert_eq!(
        p(Client::Cline, Os::Macos),
        PathBuf::from(
            "/h/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"
        )
    );
    assert_eq!(p(Client::Codex, Os::Linux), PathBuf::from("/h/.codex/config.toml"));
    assert_eq!(p(Client::Gemini, Os::Linux), PathBuf::from("/h/.gemini/settings.json"));
    assert_eq!(p(Client::Windsurf, Os::Linux), PathBuf::from("/h/.codeium/windsurf/mcp_config.json"));

    let mut e = env(Os::Linux);
    e.xdg_config_home = Some(PathBuf::from("/xdg"));
    e.codex_home = Some(PathBuf::from("/ch"));
    assert_eq!(Client::Vscode.config_path(&e).unwrap(), PathBuf::from("/xdg/Code/User/mcp.json"));
    assert_eq!(Client::Codex.config_path(&e).unwrap(), PathBuf::from("/ch/config.toml"));
    e.home = None;
    assert_eq!(Client::Cursor.config_path(&e), None);

    assert_eq!(Client::Vscode.location(Os::Windows).describe(Os::Windows), r"%APPDATA%\Code\User\mcp.json");
    assert_eq!(Client::Cursor.location(Os::Linux).describe(Os::Linux), "~/.cursor/mcp.json");
}

#[test]
fn every_client_has_a_name_that_parses_back() {
    for c in Client::ALL {
        assert_eq!(Client::parse(c.name()), Some(c));
        assert!(locations_help().contains(c.name()));
        assert!(locations_help().lines().all(|l| l.chars().count() <= 100), "help lines fit a terminal");
    }
    assert_eq!(Client::parse("Cursor"), None);
}

#[test]
fn the_wiki_documents_every_location() {
    let wiki = crate::wiki::WikiModule::Vitaecontext.content();
    for c in Client::ALL {
        for os in Os::ALL {
            let d = c.location(os).describe(os);
            assert!(wiki.contains(&d), "wiki/vitaecontext.md lacks {d} ({} on {})", c.name(), os.name());
        }
    }
}

#[test]
fn claude_code_command_is_shell_quoted() {
    assert_eq!(
        claude_code_command(Some(&entry())),
        "claude mcp add --scope user vitaecontext -- '/opt/vitae context/bin/vitaecontext' mcp --context \
         /home/ada/.vitaecontext/career-context.md"
    );
    assert_eq!(claude_code_command(None), "claude mcp remove --scope user vitaecontext");
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
    assert_eq!(shell_quote(""), "''");
    assert_eq!(shell_quote("$HOME"), "'$HOME'");
}

#[test]
fn crlf_files_stay_crlf() {
    let json = "{\r\n  \"mcpServers\": {\r\n    \"a\": {\"command\": \"a\"}\r\n  }\r\n}\r\n";
    let toml = "model = \"x\"\r\n\r\n[mcp_servers.a]\r\ncommand = \"a\"\r\n";
    for (c, text) in [(Client::Cursor, json), (Client::Codex, toml)] {
        let out = changed(register(c, text, &entry()));
        assert_eq!(out.matches('\n').count(), out.matches("\r\n").count(), "{c:?}: {out:?}");
        assert_eq!(changed(remove(c, &out)), text, "{c:?}");
    }
}

/// Found in review: with `mcpServers` twice, the entry went into the first object, which
/// JSON.parse drops, and `register` then said it was registered.
#[test]
fn a_key_given_twice_is_refused_not_edited_where_no_client_reads() {
    for text in [
        r#"{"mcpServers": {}, "mcpServers": {"x": {}}}"#,
        r#"{"mcpServers": {"vitaecontext": {"command": "a"}, "vitaecontext": {"command": "b"}}}"#,
    ] {
        for result in [register(Client::Cursor, text, &entry()).map(drop), remove(Client::Cursor, text).map(drop)] {
            assert!(matches!(&result, Err(EditError::Shape(m)) if m.contains("appears 2 times")), "{text}: {result:?}");
        }
        assert!(find(Client::Cursor, text).is_err(), "{text}");
    }
    // Once each, in any of the objects, is fine.
    assert!(register(Client::Cursor, r#"{"mcpServers": {"x": {"mcpServers": 1}}}"#, &entry()).is_ok());
}

/// A JSON config saved with a UTF-8 byte-order mark is read and keeps it; a comment in a
/// strict-JSON client's config is refused with why the client itself needs strict JSON.
#[test]
fn a_byte_order_mark_is_kept_and_a_comment_in_strict_json_is_explained() {
    let entry = Entry { command: "/usr/bin/vitaecontext".into(), args: vec!["mcp".into()] };
    let text = "\u{feff}{\n  \"mcpServers\": {}\n}\n";
    let Edit::Changed(after) = register(Client::ClaudeDesktop, text, &entry).unwrap() else { panic!("changed") };
    assert!(after.starts_with('\u{feff}') && after.contains("/usr/bin/vitaecontext"), "{after:?}");
    assert_eq!(find(Client::ClaudeDesktop, &after).unwrap(), Some(entry.clone()));
    assert_eq!(register(Client::ClaudeDesktop, &after, &entry).unwrap(), Edit::Unchanged);
    let commented = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
    let e = register(Client::ClaudeDesktop, commented, &entry).unwrap_err().to_string();
    assert!(e.contains("strict JSON") && e.contains("remove it"), "{e}");
    assert!(register(Client::Cursor, commented, &entry).is_ok(), "Cursor reads comments");
}
