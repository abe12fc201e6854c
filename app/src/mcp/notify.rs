//! Changes a server tells its clients about, and the channel that carries them to the loop.
//!
//! Whatever changes what is served (a skills watcher, the file poller of `methods.rs`) calls
//! [`Notifier::notify`]; the loop of each connection receives every change and decides, from
//! the connection's revision and subscriptions, which notification (if any) to send.

use tokio::sync::broadcast;

/// How many changes wait for a slow connection before the oldest are dropped; a connection that
/// missed some is told that every list changed (see `mod.rs`).
const CAPACITY: usize = 64;

/// One change to what the server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    /// The skills' `SKILL.md` resources changed: only 2026-07-28 `resources/list` holds them
    /// (the skills extension), so only `subscriptions/listen` streams are told, as a resource
    /// list change.
    SkillResourcesChanged,
    /// The content of the resource at this URI changed.
    ResourceUpdated(String),
}

/// The sending side: cheap to clone, never blocks, and fine with no connection listening.
#[derive(Debug, Clone)]
pub struct Notifier(broadcast::Sender<Change>);

impl Default for Notifier {
    fn default() -> Self {
        Self(broadcast::channel(CAPACITY).0)
    }
}

impl Notifier {
    pub fn notify(&self, change: Change) {
        // No receiver (no connection yet) is not an error: nobody needs telling.
        let _ = self.0.send(change);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.0.subscribe()
    }
}
