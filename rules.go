package desk

import (
	"strconv"
	"strings"
)

// ErrOwnerOnlyPassed is the refusal an agent gets for marking anything passed.
var ErrOwnerOnlyPassed = (&Error{Code: Forbidden,
	Message: "only the owner marks an issue passed"}).WithHint(
	"use auto_check while you verify it yourself, to_check to hand it to the owner, and put your evidence in a comment")

// CheckStatusChange decides whether actor may move an issue to status to.
// Only the owner marks anything passed.
func CheckStatusChange(actor, to string) error {
	if to == StatusPassed && !IsOwner(actor) {
		return ErrOwnerOnlyPassed
	}
	return nil
}

// CheckVerdict decides whether actor may give verdict ("" for none).
func CheckVerdict(actor, verdict string) error {
	if verdict == "" {
		return nil
	}
	if err := checkEnum("verdict", verdict, Verdicts); err != nil {
		return err
	}
	return CheckStatusChange(actor, verdict)
}

// HandoverProblem says why an agent may not hand issue over to the owner
// (to_check) yet, or returns nil. The owner reviews only finished work that
// he can reach in the game, in the build he plays: every plan step done or
// dropped, at least one location command, and a current build when the
// project publishes builds.
func HandoverProblem(is *Issue, p *Project) error {
	var problems, hints []string
	if open := is.Plan.OpenSteps(); len(open) > 0 {
		nums := make([]string, len(open))
		for i, n := range open {
			nums[i] = strconv.Itoa(n)
		}
		problems = append(problems, "open plan steps ("+strings.Join(nums, ", ")+")")
		hints = append(hints, "finish or drop them with update_step or progress")
	}
	if !is.Location.HasCommand() {
		problems = append(problems, "no location command")
		hints = append(hints, "add one with set_location (one place per command)")
	}
	if p.BuildsEnabled && p.Build == nil {
		problems = append(problems, "no current build")
		hints = append(hints, "publish the build the owner will play with set_build")
	}
	if len(problems) == 0 {
		return nil
	}
	return (&Error{Code: Conflict,
		Message: is.ID + " cannot go to to_check: " + strings.Join(problems, "; "),
	}).WithHint(strings.Join(hints, "; ") + "; until then keep it in auto_check")
}
