package load

import (
	"context"
	"errors"
	"fmt"
)

// teamFixture is the workload's desk, made through the API on every desk
// alike: a project of cfg.Issues issues, one with thirty comments that
// the reads of one issue read, a handoff, and one planned issue per agent
// and for the probe.
type teamFixture struct {
	project string
	detail  string
	own     []string // agent i writes on own[i]; the last is the probe's
}

const teamProject = "team-bench"

var fixtureAreas = []string{"terrain", "physics", "audio", "ui", "network"}
var fixtureKinds = []string{"bug", "task", "idea", "check"}
var fixtureWords = []string{"lava", "tiles", "jump", "ledge", "water", "menu", "sound", "lag", "camera", "save", "door", "enemy"}

func makeFixture(ctx context.Context, cfg *TeamConfig, f *failover) (*teamFixture, error) {
	fx := &teamFixture{project: teamProject}
	p := "/api/projects/" + teamProject
	if _, err := f.call(ctx, "POST", "/api/projects", map[string]any{"slug": teamProject, "name": "Team bench", "prefix": "TB"}, nil); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Issues; i++ {
		w := func(k int) string { return fixtureWords[(i*7+k*3)%len(fixtureWords)] }
		var created struct {
			ID string `json:"id"`
		}
		in := map[string]any{"title": fmt.Sprintf("The %s %s near the %s", w(0), w(1), w(2)), "kind": fixtureKinds[i%len(fixtureKinds)],
			"area": fixtureAreas[i%len(fixtureAreas)], "body": fmt.Sprintf("Seen after the %s; the %s does not %s.", w(3), w(4), w(5))}
		if _, err := f.call(ctx, "POST", p+"/issues", in, &created); err != nil {
			return nil, fmt.Errorf("fixture issue %d: %w", i, err)
		}
		if i == 0 {
			fx.detail = created.ID
		}
	}
	if fx.detail == "" {
		return nil, errors.New("the fixture needs at least one issue")
	}
	for k := 0; k < 30; k++ {
		if _, err := f.call(ctx, "POST", "/api/issues/"+fx.detail+"/comments", map[string]any{"text": fmt.Sprintf("Comment %d on the %s", k+1, fixtureWords[k%len(fixtureWords)]), "author": "owner"}, nil); err != nil {
			return nil, err
		}
	}
	if _, err := f.call(ctx, "POST", p+"/handoff", map[string]any{"author": "owner", "markdown": "# Handoff\n\nThe lava tiles are next; then the ledge.\n"}, nil); err != nil {
		return nil, fmt.Errorf("fixture handoff: %w", err)
	}
	for i := 0; i <= cfg.Agents; i++ {
		var created struct {
			ID string `json:"id"`
		}
		if _, err := f.call(ctx, "POST", p+"/issues", map[string]any{"title": fmt.Sprintf("Agent %d's task", i+1), "kind": "task"}, &created); err != nil {
			return nil, err
		}
		if _, err := f.call(ctx, "POST", "/api/issues/"+created.ID+"/plan", map[string]any{"steps": []string{"Reproduce it", "Fix it", "Verify it"}, "actor": "bench"}, nil); err != nil {
			return nil, err
		}
		fx.own = append(fx.own, created.ID)
	}
	return fx, nil
}

// teamOwnerReads are the page's reads in one owner pass.
func teamOwnerReads(fx *teamFixture) [][2]string {
	p := "/api/projects/" + fx.project
	return [][2]string{
		{"owner_health", "/api/health"},
		{"owner_project", p},
		{"owner_triage", p + "/issues?sort=triage&limit=200&summary=1&status=reported,open,in_progress,auto_check,to_check,failed"},
		{"owner_backlog", p + "/issues?sort=backlog&limit=5000&summary=1&status=open,in_progress"},
		{"owner_search", p + "/issues?q=lava&limit=200"},
		{"owner_detail", "/api/issues/" + fx.detail},
		{"owner_handoff", p + "/handoff"},
	}
}

// teamAgentCalls are an agent's calls in a round, as its MCP server makes
// them over HTTP.
var teamAgentCalls = []string{"agent_list", "agent_get", "agent_comment", "agent_progress", "agent_handoff"}
