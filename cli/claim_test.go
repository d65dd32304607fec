package cli_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"desk"
)

func TestClaimCommands(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Lava tips are square")
	e.ok("add", "--title", "Harbor workers stuck")

	var c desk.Claim
	e.okJSON(&c, "claim", "MG-1", "--holder", "codex 0193", "--hours", "0.5")
	if c.Holder != "codex 0193" || c.Issue != "MG-1" {
		t.Fatalf("claim: %+v", c)
	}
	e.fails(5, "MG-1 is claimed by codex 0193 until "+c.ExpiresAt, "claim", "MG-1", "--holder", "claude")
	e.fails(3, "longer than the limit of 24 hours", "claim", "MG-2", "--holder", "claude", "--hours", "1000")
	e.fails(3, "shorter than a minute", "claim", "MG-2", "--holder", "claude", "--hours", "0.001")
	e.fails(4, "no issue MG-9", "claim", "MG-9", "--holder", "claude")
	e.fails(2, "--holder", "claim", "MG-2")
	e.extra = []string{"DESK_AUTHOR=claude"}
	if out := e.ok("claim", "MG-2"); !strings.HasPrefix(out, "MG-2 is claimed by claude until ") {
		t.Errorf("claim with DESK_AUTHOR: %q", out)
	}
	if out := e.ok("claims"); !strings.Contains(out, "MG-1     codex 0193 until") || !strings.Contains(out, "MG-2     claude until") {
		t.Errorf("claims:\n%s", out)
	}
	// The list shows the claim, and leaves claimed issues out when asked.
	var l desk.IssueList
	e.okJSON(&l, "list")
	for _, is := range l.Issues {
		if is.Claim == nil {
			t.Errorf("%s shows no claim in the list", is.ID)
		}
	}
	e.fails(5, "not by claude", "release", "MG-1")
	e.ok("release", "MG-2")
	var d desk.IssueDetail
	e.okJSON(&d, "show", "MG-2")
	if d.Claim != nil {
		t.Errorf("MG-2 keeps its claim after the release: %+v", d.Claim)
	}
	raw := e.ok("show", "MG-2", "--json")
	if !strings.Contains(raw, `"claim":null`) {
		t.Errorf("an issue without a claim does not say claim null: %s", raw)
	}
	// The owner releases anyone's.
	e.extra = nil
	if out := e.ok("release", "MG-1"); !strings.Contains(out, "no longer claimed by codex 0193") {
		t.Errorf("the owner's release: %q", out)
	}
	if out := e.ok("release", "MG-1"); !strings.Contains(out, "had no claim") {
		t.Errorf("releasing an unclaimed issue: %q", out)
	}
	// Closing ends a claim.
	e.ok("claim", "MG-1", "--holder", "codex")
	e.ok("status", "MG-1", "closed")
	e.okJSON(&d, "show", "MG-1")
	if d.Claim != nil {
		t.Errorf("a closed issue keeps its claim: %+v", d.Claim)
	}
	e.fails(5, "closed", "claim", "MG-1", "--holder", "codex")
}

// Twenty processes race for one claim: exactly one holds it, every time,
// and every other names the holder.
func TestClaimsRacedFromTwentyProcesses(t *testing.T) {
	e := projectEnv(t)
	const rounds, racers = 5, 20
	for i := 0; i < rounds; i++ {
		e.ok("add", "--title", fmt.Sprintf("race %d", i))
	}
	for round := 1; round <= rounds; round++ {
		id := fmt.Sprintf("MG-%d", round)
		var wg sync.WaitGroup
		results := make([]result, racers)
		start := make(chan struct{})
		for i := 0; i < racers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i] = e.run("claim", id, "--holder", fmt.Sprintf("agent-%02d", i))
			}()
		}
		close(start)
		wg.Wait()
		winners := 0
		winner := ""
		for i, r := range results {
			switch r.code {
			case 0:
				winners++
				winner = fmt.Sprintf("agent-%02d", i)
			case 5:
				if !strings.Contains(r.err, id+" is claimed by agent-") {
					t.Errorf("round %d: a refused racer said %q", round, r.err)
				}
			default:
				t.Errorf("round %d: a racer exited %d: %s", round, r.code, r.err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d racers hold %s", round, winners, id)
		}
		for _, r := range results {
			if r.code == 5 && !strings.Contains(r.err, "claimed by "+winner+" until") {
				t.Errorf("round %d: a refusal names another holder than %s: %s", round, winner, r.err)
			}
		}
	}
}
