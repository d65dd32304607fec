package pair

import (
	"fmt"

	"desk"
)

// Rule codes: every refusal names one, stable across versions, so that an
// agent (or a script) acts on the code rather than on the wording. Each
// refusal also carries a one-line hint of what to do instead.
const (
	RuleNotInPair      = "not_in_pair"      // the caller was not started in a pair
	RuleNotMember      = "not_member"       // DESK_PAIR_ROLE names no member of the pair
	RuleStopped        = "stopped"          // the pair was stopped
	RuleSingleWriter   = "single_writer"    // write authority is held by someone else, or by nobody
	RuleRole           = "role"             // the tool is the other role's
	RuleAuditMode      = "audit_mode"       // patches in audit mode
	RuleOpenTask       = "open_task"        // an open task blocks closing the round
	RuleUnappliedPatch = "unapplied_patch"  // a sealed patch not applied blocks closing the round
	RuleNoEvidence     = "no_evidence"      // closing a round needs recorded evidence
	RuleSemiNeedsOK    = "semi_needs_ok"    // closing a semi round needs the owner's word
	RuleSealMismatch   = "seal_mismatch"    // the patch file is not what was sealed
	RuleGlob           = "glob"             // a pattern where one exact path is needed
	RuleOutsideFolder  = "outside_folder"   // a path outside the patch folder or the pair's folder
	RuleTooLarge       = "too_large"        // over a size cap
	RuleUnknownPhase   = "unknown_phase"    // not a phase
	RuleUnknownMode    = "unknown_mode"     // not a mode
	RuleUnknownLevel   = "unknown_autonomy" // not an autonomy level
	RuleStaleAck       = "stale_ack"        // an ack_token that is not the caller's current one
	RulePatchState     = "patch_state"      // the patch is not in the state the step needs
	RuleUnknownPatch   = "unknown_patch"    // no such patch
	RuleUnknownTask    = "unknown_task"     // no such task
	RuleTaskState      = "task_state"       // the task was closed already
	RuleReason         = "reason_required"  // a step that needs a reason got none
	RuleBudget         = "budget"           // a round's ceiling was reached
	RuleEmpty          = "empty"            // nothing to send, note or record
	RuleNoTerminal     = "no_terminal"      // the peer runs in no managed session
	RuleObserve        = "observe"          // observe leaves prompts to the owner
	RulePhase          = "phase"            // the step does not fit the phase
	RuleNotDiff        = "not_a_diff"       // a patch file that holds no unified diff
)

// Size caps.
const (
	MaxMessage   = 256 << 10 // a letter's body
	MaxNote      = 256 << 10 // one note entry
	MaxTaskText  = 2000
	MaxEvidence  = 8 << 10
	MaxRationale = 2000
	MaxPatch     = 4 << 20 // a patch file
	MaxTask      = 20000   // the pair's task text
)

// Error kinds, as desk's codes.
const (
	invalid   = desk.Invalid
	conflict  = desk.Conflict
	forbidden = desk.Forbidden
	notFound  = desk.NotFound
)

// refuse returns a refusal: desk's error with the rule that refused.
func refuse(rule, code, format string, args ...any) *desk.Error {
	return &desk.Error{Code: code, Message: fmt.Sprintf(format, args...), Rule: rule}
}

// sizeText names a cap in the units people read.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// tooLarge refuses what passes a cap, and says the cap.
func tooLarge(what string, size, limit int, hint string) *desk.Error {
	return refuse(RuleTooLarge, invalid, "%s is %s, over the cap of %s", what, sizeText(size), sizeText(limit)).WithHint(hint)
}
