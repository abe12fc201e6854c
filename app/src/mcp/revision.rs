//! The MCP revisions this server speaks, and the one place that says which revision each gated
//! field or behaviour belongs to.
//!
//! Every gate below names the revision whose schema or specification pages define the field
//! (`schema/<revision>/schema.ts` and `docs/specification/<revision>/...` of
//! modelcontextprotocol/modelcontextprotocol). Revisions are an enumerated set: a string that is
//! not one of them is never ordered against them.

/// One MCP revision, oldest first (so `>=` means "this revision or a later one").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    /// The revision of the contract (`/work/shared/spec/vitaecontext-mcp-contract.md`): its
    /// `initialize` result and behaviour are kept byte for byte.
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    /// Stateless: no handshake; every request names its revision in `_meta`.
    V2026_07_28,
}

impl Revision {
    pub const ALL: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// Reachable through `initialize` (2026-07-28 basic/versioning calls these "legacy").
    pub const HANDSHAKE: [Revision; 4] =
        [Revision::V2024_11_05, Revision::V2025_03_26, Revision::V2025_06_18, Revision::V2025_11_25];

    /// Named per request in `_meta` (2026-07-28 basic/versioning: "modern"). This is the list
    /// `server/discover` advertises and `-32022` names: the versions a request's `_meta` may name.
    pub const MODERN: [Revision; 1] = [Revision::V2026_07_28];

    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    pub fn parse(s: &str) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The revision an `initialize` request gets. basic/lifecycle (every handshake revision):
    /// a supported requested version is echoed; otherwise the server answers with the latest
    /// version it supports. 2026-07-28 has no handshake, so asking for it through `initialize`
    /// gets the latest handshake revision, as does an unknown string. An `initialize` that names
    /// no version (or not as a string) keeps what it got before revisions were negotiated: the
    /// contract's 2024-11-05.
    pub fn negotiate(requested: Option<&str>) -> Revision {
        match requested {
            None => Revision::V2024_11_05,
            Some(v) => Revision::parse(v).filter(|r| Revision::HANDSHAKE.contains(r)).unwrap_or(Revision::V2025_11_25),
        }
    }

    /// 2026-07-28 and later: stateless, every request carries its own `_meta` envelope.
    pub fn is_modern(self) -> bool {
        self >= Revision::V2026_07_28
    }

    /// `ServerCapabilities.completions` appears in the 2025-03-26 schema (2024-11-05 answered
    /// `completion/complete` without a capability for it).
    pub fn has_completions_capability(self) -> bool {
        self >= Revision::V2025_03_26
    }

    /// `InitializeResult.instructions` is in the schema since 2024-11-05, but the contract fixes
    /// that revision's result without it, so it is sent from 2025-03-26 on (and in
    /// `DiscoverResult.instructions`, 2026-07-28).
    pub fn has_instructions(self) -> bool {
        self >= Revision::V2025_03_26
    }

    /// `Tool.annotations` (`ToolAnnotations`: `readOnlyHint`, `idempotentHint`,
    /// `openWorldHint`, ...) first appear in the 2025-03-26 schema.
    pub fn has_tool_annotations(self) -> bool {
        self >= Revision::V2025_03_26
    }

    /// `listChanged: true` and `notifications/{tools,prompts,resources}/list_changed`. Every
    /// revision's schema has them, but the contract fixes `listChanged: false` for 2024-11-05,
    /// so they are sent from 2025-03-26 on (in 2026-07-28 on `subscriptions/listen` streams).
    pub fn has_list_changed(self) -> bool {
        self >= Revision::V2025_03_26
    }

    /// `resources/subscribe`, `resources/unsubscribe` and `notifications/resources/updated` in
    /// the handshake era: in every handshake revision's schema, withheld from 2024-11-05 (the
    /// contract declares no `subscribe`); 2026-07-28 replaced them with `subscriptions/listen`.
    pub fn has_resource_subscribe(self) -> bool {
        self >= Revision::V2025_03_26 && !self.is_modern()
    }

    /// JSON-RPC batches: 2025-03-26 added them explicitly (`JSONRPCBatchRequest`), 2025-06-18
    /// removed them ("Remove support for JSON-RPC batching", changelog), and later revisions do
    /// not bring them back. 2024-11-05 keeps today's behaviour (batches answered in one array),
    /// which its base protocol, plain JSON-RPC 2.0, allows.
    pub fn allows_batches(self) -> bool {
        self <= Revision::V2025_03_26
    }

    /// `BaseMetadata.title` on tools, prompts, resources, templates and `Implementation`
    /// (`serverInfo.title`): 2025-06-18 schema.
    pub fn has_titles(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// `Tool.outputSchema` and `CallToolResult.structuredContent`: 2025-06-18 ("structured tool
    /// output", changelog). The text content stays: the tools page says a tool returning
    /// structured content SHOULD also return it serialised in a text block.
    pub fn has_structured_output(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// `ResourceLink` content (`type: "resource_link"`) in tool results: 2025-06-18.
    pub fn has_resource_links(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// `Implementation.description` and `Implementation.websiteUrl`: 2025-11-25 schema.
    pub fn has_server_description(self) -> bool {
        self >= Revision::V2025_11_25
    }

    /// `resultType` on every result (SEP-2322) and `ttlMs`/`cacheScope` on the lists and
    /// `resources/read` (`CacheableResult`, SEP-2549): 2026-07-28. The server identifies itself
    /// in each result's `_meta` under `io.modelcontextprotocol/serverInfo` instead of in an
    /// `initialize` result.
    pub fn has_result_type(self) -> bool {
        self >= Revision::V2026_07_28
    }

    /// The skills extension (`io.modelcontextprotocol/skills`: `skills/list`, `skills/get`,
    /// `resources/directory/read` and `skill://` reads). Its specification
    /// (modelcontextprotocol/ext-skills, `specification/stable/skills.mdx`, "Protocol Revision")
    /// "specifies the extension against base protocol revision `2026-07-28` or later", and it is
    /// declared only in `server/discover`; so handshake revisions are not offered it: no
    /// declaration in `initialize`, and its methods are unknown (-32601) there.
    pub fn has_skills_extension(self) -> bool {
        self >= Revision::V2026_07_28
    }

    /// 2026-07-28 basic/index, "Error Codes": resource not found is `-32602`, and `-32002` (its
    /// code up to 2025-11-25) MUST NOT be emitted.
    pub fn resource_not_found_code(self) -> i64 {
        use super::jsonrpc::code;
        if self >= Revision::V2026_07_28 { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND }
    }

    /// 2026-07-28 changelog item 5 removes `ping` and `logging/setLevel`; item 4 replaces
    /// `resources/subscribe`/`resources/unsubscribe` with `subscriptions/listen`; item 2 removes
    /// the handshake. A modern request for one of these is an unknown method (-32601).
    pub fn removed_method(self, method: &str) -> bool {
        self.is_modern()
            && matches!(method, "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe")
    }
}

/// The `_meta` keys of the 2026-07-28 per-request envelope (basic/index, "Reserved keys").
pub mod meta {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_is_release_order() {
        for r in Revision::ALL {
            assert_eq!(Revision::parse(r.as_str()), Some(r));
        }
        assert!(Revision::ALL.windows(2).all(|w| w[0] < w[1] && w[0].as_str() < w[1].as_str()));
    }

    #[test]
    fn initialize_echoes_a_handshake_revision_and_otherwise_answers_the_latest() {
        for r in Revision::HANDSHAKE {
            assert_eq!(Revision::negotiate(Some(r.as_str())), r);
        }
        for other in ["2026-07-28", "2099-01-01", "zzz", ""] {
            assert_eq!(Revision::negotiate(Some(other)), Revision::V2025_11_25, "{other:?}");
        }
        assert_eq!(Revision::negotiate(None), Revision::V2024_11_05, "no version: the contract's answer");
    }

    #[test]
    fn batches_belong_to_2024_11_05_and_2025_03_26_only() {
        let allowed: Vec<_> = Revision::ALL.into_iter().filter(|r| r.allows_batches()).collect();
        assert_eq!(allowed, [Revision::V2024_11_05, Revision::V2025_03_26]);
    }

    #[test]
    fn the_contract_revision_has_no_later_field() {
        let r = Revision::V2024_11_05;
        assert!(!r.has_completions_capability() && !r.has_instructions() && !r.has_tool_annotations());
        assert!(!r.has_titles() && !r.has_structured_output() && !r.has_resource_links());
        assert!(!r.has_server_description() && !r.has_result_type() && !r.is_modern());
        assert!(!Revision::V2025_11_25.has_skills_extension() && Revision::V2026_07_28.has_skills_extension());
        assert_eq!(r.resource_not_found_code(), -32002);
        assert_eq!(Revision::V2026_07_28.resource_not_found_code(), -32602);
    }
}
