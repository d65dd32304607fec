package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"desk/pair"
	"desk/pairterm"
	"desk/session"
)

// The pair tools: the caller's pair and role come from its launch
// (DESK_PAIR and DESK_PAIR_ROLE in this server's environment), never from
// an argument, and every rule is package pair's. A server started outside
// a pair answers each of them "not in a pair".

// pairService is the rules over this server's store, made on first use.
type pairService struct {
	once sync.Once
	svc  *pair.Service
}

func (s *server) pairs() *pair.Service {
	s.pair.once.Do(func() {
		svc := &pair.Service{Store: s.db, PatchRoot: pair.PatchRootIn(s.db.Dir())}
		// pair_deliver and pair_unblock reach the peer's managed session
		// through its holder; they read, type and press keys, never launch.
		svc.Terminals = &pairterm.Terminals{M: &session.Manager{Store: s.db, DataDir: s.db.Dir()}, Pairs: svc}
		s.pair.svc = svc
	})
	return s.pair.svc
}

// caller is who calls, from the environment alone.
func (s *server) caller() (pair.Caller, error) {
	return pair.CallerFromEnv(s.opts.Getenv)
}

// pairTool wraps a pair rule: the caller is resolved first, so that a
// server in no pair refuses before anything else.
func pairTool(fn func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error)) func(ctx context.Context, s *server, a *args) (any, error) {
	return func(ctx context.Context, s *server, a *args) (any, error) {
		c, err := s.caller()
		if err != nil {
			return nil, err
		}
		return fn(ctx, s, c, a)
	}
}

// pairInstructions tells an agent started in a pair how to work in it.
func pairInstructions(getenv func(string) string) string {
	c, err := pair.CallerFromEnv(getenv)
	if err != nil {
		return ""
	}
	return " You run as " + c.Role + " in pair " + c.Pair + ": one writer edits the files (pair_claim), every other member is a critic who reviews, tests and proposes changes as sealed patches (pair_propose). " +
		"Start with pair_digest; end every turn with pair_read wait_seconds 45 and pass its ack_token back on the next read. Refusals name their rule in brackets."
}

var (
	pPatch     = param{name: "patch", typ: tInteger, min: intp(1), desc: "the patch's number (or give path)"}
	pPatchPath = param{name: "path", typ: tString, desc: "the patch file's exact absolute path (or give patch)"}
	pTo        = param{name: "to", typ: tArray, items: map[string]any{"type": tString}, desc: "roles to write to; default: every peer"}
)

// proposedItems is the schema of one proposed file.
var proposedItems = map[string]any{
	"type": tObject,
	"properties": map[string]any{
		"path":    map[string]any{"type": tString, "description": "the file's path, relative to the pair's folder"},
		"content": map[string]any{"type": tString, "description": "the file's whole new content"},
	},
	"required": []string{"path", "content"},
}

// pairTools are the pairing protocol.
var pairTools = []*tool{
	{
		name:     "pair_state",
		desc:     "Your pair as you see it: your role, the writer, task, phase, mode, autonomy, round, members with last seen, unread letters, open tasks, patches, evidence and what keeps the round from closing.",
		readOnly: true,
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().State(ctx, c)
		}),
	},
	{
		name:   "pair_claim",
		desc:   "Take write authority: you become the only member who edits the files. Refused (naming the holder) while someone holds it.",
		params: []param{{name: "rationale", typ: tString, required: true, desc: "why you, and what you will write"}},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Claim(ctx, c, a.str("rationale"))
		}),
	},
	{
		name:   "pair_release",
		desc:   "Give write authority up (the writer only), with a reason; the next pair_claim takes it.",
		params: []param{{name: "reason", typ: tString, required: true, desc: "why"}},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Release(ctx, c, a.str("reason"))
		}),
	},
	{
		name: "pair_advance",
		desc: "Move the phase (" + strings.Join(pair.Phases, ", ") + "). Forward is the writer's; back is anyone's, with a reason (the critic's veto). " +
			"Reaching done closes the round: it needs passing evidence, no open task, no sealed patch unapplied (and in semi the owner's word).",
		params: []param{
			{name: "to", typ: tString, required: true, enum: pair.Phases, lenient: true, desc: "the phase to move to"},
			{name: "reason", typ: tString, desc: "why; required to move back"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Advance(ctx, c, a.str("to"), a.str("reason"))
		}),
	},
	{
		name:     "pair_ping",
		desc:     "Say you are alive; answers your role, the writer and your unread count. The cheapest call.",
		readOnly: false,
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Ping(ctx, c)
		}),
	},
	{
		name:     "pair_digest",
		desc:     "A short orientation within a token budget: task, phase, writer, what waits for you, open tasks, the last verdict and plan.",
		readOnly: true,
		params:   []param{{name: "tokens", typ: tInteger, min: intp(pair.MinDigestTokens), max: intp(pair.MaxDigestTokens), desc: "the budget (default 600)"}},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Digest(ctx, c, a.integer("tokens", 0))
		}),
	},
	{
		name:   "pair_send",
		desc:   "Put a letter in the peers' mailboxes (at most 256 KiB). The peer reads it with pair_read.",
		params: []param{{name: "body", typ: tString, required: true, desc: "the letter"}, pTo},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Send(ctx, c, a.str("body"), a.list("to"))
		}),
	},
	{
		name:   "pair_deliver",
		desc:   "Send a letter and type a one-line pointer to it into the peer's terminal when its composer shows (best effort; the mailbox always has it).",
		params: []param{{name: "body", typ: tString, required: true, desc: "the letter"}, pTo},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Deliver(ctx, c, a.str("body"), a.list("to"))
		}),
	},
	{
		name: "pair_read",
		desc: "Read your unread letters. A batch stays unread until you pass its ack_token to the next pair_read (which also reads on). " +
			"wait_seconds blocks until a letter arrives (at most 60). End every turn with one.",
		mayBlock: true,
		params: []param{
			{name: "ack_token", typ: tString, desc: "the token of the batch you read last"},
			{name: "wait_seconds", typ: tNumber, desc: "wait this long for a letter when none is unread (capped at 60)"},
			{name: "limit", typ: tInteger, min: intp(1), max: intp(pair.MaxReadLimit), desc: "letters per batch (default 20)"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Read(ctx, c, pair.ReadInput{AckToken: a.str("ack_token"), WaitSeconds: a.number("wait_seconds"), Limit: a.integer("limit", 0)})
		}),
	},
	{
		name: "pair_note",
		desc: "Append an entry to a note: plan, decision, finding, verdict or handoff.",
		params: []param{
			{name: "kind", typ: tString, required: true, enum: pair.NoteKinds, lenient: true},
			{name: "text", typ: tString, required: true, desc: "markdown"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Note(ctx, c, a.str("kind"), a.str("text"))
		}),
	},
	{
		name:     "pair_note_index",
		desc:     "Every note with its entries, bytes and lines, largest first: decide what to read before paying for it.",
		readOnly: true,
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			notes, err := s.pairs().NoteIndex(ctx, c)
			return map[string]any{"notes": notes}, err
		}),
	},
	{
		name:     "pair_note_read",
		desc:     "Read the tail of a note: its newest whole entries, at most 400 lines.",
		readOnly: true,
		params: []param{
			{name: "kind", typ: tString, required: true, enum: pair.NoteKinds, lenient: true},
			{name: "lines", typ: tInteger, min: intp(1), max: intp(pair.MaxNoteLines), desc: "at most this many lines (default 400)"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().NoteRead(ctx, c, a.str("kind"), a.integer("lines", 0))
		}),
	},
	{
		name: "pair_task",
		desc: "The shared task list (append-only): add a task; done closes one (the writer only); drop closes one with a reason. An open task blocks the round.",
		params: []param{
			{name: "action", typ: tString, required: true, enum: []string{pair.TaskAdd, pair.TaskDo, pair.TaskDrop}, lenient: true},
			{name: "text", typ: tString, desc: "the task, to add"},
			{name: "task", typ: tInteger, min: intp(1), desc: "the task's number, for done and drop"},
			{name: "reason", typ: tString, desc: "why it is dropped"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().ChangeTask(ctx, c, pair.TaskInput{Action: a.str("action"), Text: a.str("text"), N: a.integer("task", 0), Reason: a.str("reason")})
		}),
	},
	{
		name:   "pair_patch_reserve",
		desc:   "A critic's step: make an empty patch file (mode 0600, in desk's data folder) to write a unified diff into, then pair_patch_seal it. Refused for the writer and in audit mode.",
		params: []param{{name: "summary", typ: tString, desc: "what the patch changes"}},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Reserve(ctx, c, a.str("summary"))
		}),
	},
	{
		name:   "pair_patch_seal",
		desc:   "A critic's step: record the SHA-256 of your reserved patch file once the diff is in it; the writer is told.",
		params: []param{pPatch, pPatchPath},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Seal(ctx, c, patchRef(a))
		}),
	},
	{
		name:   "pair_patch_verify",
		desc:   "The writer's step: check a sealed patch against its seal just before applying it. Any change to the file halts the apply.",
		params: []param{pPatch, pPatchPath},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Verify(ctx, c, patchRef(a))
		}),
	},
	{
		name: "pair_propose",
		desc: "A critic's one call for a patch: give each file's whole new content; desk writes the unified diff against the folder, seals it and tells the writer. " +
			"The folder is not touched. Refused for the writer and in audit mode.",
		params: []param{
			{name: "files", typ: tArray, required: true, min: intp(1), items: proposedItems, desc: "the files: [{path, content}]"},
			{name: "summary", typ: tString, desc: "what the patch changes and why"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			var files []pair.ProposedFile
			if err := json.Unmarshal(a.raw("files"), &files); err != nil {
				return nil, argError("pair_propose: files must be a list of {path, content}")
			}
			return s.pairs().Propose(ctx, c, files, a.str("summary"))
		}),
	},
	{
		name: "pair_patch_applied",
		desc: "The writer's step: record whether applying a verified patch succeeded (the seal is checked once more). An unapplied sealed patch blocks the round.",
		params: []param{pPatch, pPatchPath,
			{name: "applied", typ: tBoolean, desc: "true (the default) when it applied; false with a note when it did not"},
			{name: "note", typ: tString, desc: "what happened"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			ok := !a.has("applied") || a.boolean("applied")
			return s.pairs().Applied(ctx, c, patchRef(a), ok, a.str("note"))
		}),
	},
	{
		name:        "pair_patch_release",
		desc:        "Delete one patch file, named by its exact absolute path (never a pattern), and record it released.",
		destructive: true,
		params:      []param{{name: "path", typ: tString, required: true, desc: "the patch file's exact absolute path"}},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().ReleasePatch(ctx, c, a.str("path"))
		}),
	},
	{
		name: "pair_evidence",
		desc: "Record a fact for this round: tests, lint, typecheck, commit or pr, with the command and its outcome. Closing a round needs passing evidence.",
		params: []param{
			{name: "kind", typ: tString, required: true, enum: pair.EvidenceKinds, lenient: true},
			{name: "text", typ: tString, required: true, desc: "the command and its outcome, the commit, the PR"},
			{name: "passed", typ: tBoolean, desc: "false for a failing run (default true)"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().AddEvidence(ctx, c, a.str("kind"), a.str("text"), !a.has("passed") || a.boolean("passed"))
		}),
	},
	{
		name:   "pair_unblock",
		desc:   "Read a peer's terminal and answer its permission prompt yes when it is on the folder's allowlist and off the never-list; the rest stays for the owner.",
		params: []param{{name: "role", typ: tString, desc: "the peer; default: the peer with a managed terminal"}},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Unblock(ctx, c, a.str("role"))
		}),
	},
	{
		name:     "pair_transcript",
		desc:     "The pair's append-only transcript, refusals included: the newest limit entries (default 200) after since (an entry id or a time).",
		readOnly: true,
		params: []param{
			{name: "limit", typ: tInteger, min: intp(1), max: intp(pair.MaxTranscript), desc: "entries (default 200)"},
			{name: "since", typ: tString, desc: "after this entry id (the last answer's next), or at or after this ISO time"},
		},
		run: pairTool(func(ctx context.Context, s *server, c pair.Caller, a *args) (any, error) {
			return s.pairs().Transcript(ctx, c, a.integer("limit", 0), a.str("since"))
		}),
	},
}

// patchRef reads patch and path.
func patchRef(a *args) pair.PatchRef {
	return pair.PatchRef{N: a.integer("patch", 0), Path: strings.TrimSpace(a.str("path"))}
}

// number returns a number argument, or 0.
func (a *args) number(name string) float64 {
	var f float64
	_ = json.Unmarshal(a.m[name], &f)
	return f
}
