// Package agent turns what coding agents report about themselves into one
// live picture: which sessions run on this machine, what each is doing this
// second, and which one waits for its owner.
//
// Three layers, each usable alone:
//
//   - Mapping. Every agent CLI reports its lifecycle in its own dialect (hook
//     payloads for Claude Code, Codex, Gemini, Qwen, Grok and Kimi; plugin or
//     extension envelopes for opencode and Pi). One folder per client under
//     agent/ registers a MapFunc that turns a payload into normalized Events.
//     Import desk/agent/all to register every client. Decode is the entry.
//
//   - State. A Tracker applies Events to sessions with one state machine for
//     every client (states: working, needs_permission, waiting_input, done,
//     ended, unknown). It never guesses silently: a state that no client
//     asserted is unknown, and a state that only a heuristic suggests is
//     marked Inferred.
//
//   - Fallback. When a client's hooks are not installed, a Watcher reads its
//     transcripts incrementally and produces the same Events with
//     Source transcript. Hooks win: once a hook event arrives for a session,
//     transcript events for it are dropped.
//
// # Use
//
// A server holds one Tracker and, for clients whose hooks may be missing,
// one Watcher. Per report: Decode, then Apply each event; persist the
// sessions in Update.Sessions, delete the records in Update.Merged, and
// announce the change. Every few hundred milliseconds: Poll the Watcher and
// Apply its events, then Tick the Tracker and persist what it changed. At
// start: Restore what was persisted. An MCP call finds its session with
// Lookup (a client that passes its session id) or Match (by folder).
//
// # Ordering
//
// Hook processes race each other, so events can arrive out of order. Each
// session remembers the time of the latest event it applied; an older event
// is kept in the history, marked Late, and does not move the state. Events
// for a session that was never started create it: Claude Code's http hooks
// never deliver SessionStart, so the first event seen is as good a start as
// any.
//
// # Identity
//
// A session record keeps its id for life. /clear and /resume hand a running
// conversation to a new provider session id; the Tracker follows the handover
// (see handover.go) and keeps the record, adding the new id as an alias.
// Sub-agents are records of their own whose Parent names their session.
//
// # Generations
//
// A managed launch stamps its hooks with DESK_SESSION_GENERATION. An event
// stamped with an older generation than one already seen for its launch or
// session comes from a producer that outlived a restart and is refused.
// Unstamped events (generation 0) are accepted: most sessions on a machine
// were not launched by desk.
package agent
