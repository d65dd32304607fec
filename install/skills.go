package install

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// skill is one instruction file for the agents, in the Agent Skills format
// (a folder with SKILL.md whose front matter names and describes it).
type skill struct {
	name        string
	description string
	body        string // markdown; {desk} stands for the desk command
}

// skills are desk's three skills: how to work with the desk, how to start
// the web desk, and how to triage what is new.
var skills = []skill{
	{
		name:        "desk",
		description: "How to work with desk, the table shared with the owner: read the linked project's issues, plan before coding, tick plan steps as commits land, file checks for the owner and keep the handoff current. Use at the start of any coding task in a repo linked to a desk project.",
		body: `# Working with desk

desk holds this project's work: issues (bug, check, idea, task), plans, the
handoff and the checks only the owner can pass. Its MCP server is called
**desk**; the same commands exist on the command line as ` + "`{desk} <command>`" + `.

## At the start

1. The session-start hook already told you the project and what is waiting.
   If it did not, call ` + "`list_projects`" + ` and look for the project linked to
   this folder (` + "`.desk.json`" + ` at the repo root names it).
2. Read the handoff (` + "`get_handoff`" + `): where work stopped, the next step and the
   traps. Trust it over your memory of earlier sessions.
3. Look at failed checks and new reports first; they are the owner talking.

## While you work

- Before you change code for an issue, give it a plan (` + "`set_plan`" + `) with small
  steps and a verification line. Tick a step with ` + "`progress`" + ` when its commit
  lands, naming the commit.
- When something is ready for the owner to see, file or move a **check**
  (status ` + "`to_check`" + `) with a location command that takes them to the spot.
  Only the owner marks a check passed; never try to.
- Comment on the issue when you learn something the next session needs.
- New owner activity arrives before your next prompt; read it and react.

## Before you stop

Update the handoff's "Where work stopped", "Next step" and "Traps" sections
(` + "`update_handoff`" + `). The next session starts from there.
`,
	},
	{
		name:        "desk-serve",
		description: "Start the desk web UI in the background and give the owner its address. Use when the owner asks to open, start or see the desk.",
		body: `# Start the web desk

Run this in the background; it serves the desk on 127.0.0.1 and opens the
browser:

    {desk} serve --open

If a desk already runs, the command says so and prints its address. Tell the
owner the address it printed. The desk only listens on this machine.
`,
	},
	{
		name:        "desk-triage",
		description: "Summarise what needs attention in the current desk project: new reports from the owner or the game, and checks the owner marked still broken. Use when asked what is new, what broke, or what to do next.",
		body: `# Triage the desk

1. Find the project linked to this folder (` + "`list_projects`" + `, or ` + "`.desk.json`" + `).
2. List new reports: ` + "`list_issues`" + ` with status ` + "`reported`" + `. For each, say in one
   line what it is, where (its location command), and whether it looks like a
   duplicate of an open issue (` + "`search`" + ` by its key words).
3. List failed checks: status ` + "`failed`" + `. Read the owner's last comment on each:
   it says what is still wrong.
4. Propose an order: failed checks first, then reports by priority. Ask the
   owner before merging duplicates or changing priorities.

From the command line the same lists are:

    {desk} list --status reported
    {desk} list --status failed
`,
	},
}

// skillText renders a skill's SKILL.md with the absolute desk command.
func (c *installCtx) skillText(s skill) string {
	return "---\nname: " + s.name + "\ndescription: " + yamlString(s.description) + "\n---\n\n" +
		strings.ReplaceAll(s.body, "{desk}", shellQuote(c.env.Desk))
}

func yamlString(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a valid YAML double-quoted scalar
	return string(b)
}

// The shared skills folder is read by several tools. Each desk skill folder
// there carries a marker file naming the tools that use it, so uninstalling
// one tool keeps the skills another still uses.
const skillMarker = ".desk-skill.json"

type skillOwners struct {
	GeneratedBy string   `json:"generated_by"`
	UsedBy      []string `json:"used_by"`
}

func sharedSkillsDir(c *installCtx) string { return c.home(".agents", "skills") }

// sharedSkillSteps adds (or, on uninstall, releases) the shared skills for
// tool t. Who uses a skill is read from its marker when the step runs, not
// when it is planned, so two tools installed in one run both end up listed.
func sharedSkillSteps(c *installCtx, t *tool) []*step {
	var steps []*step
	for _, s := range skills {
		dir := filepath.Join(sharedSkillsDir(c), s.name)
		marker := filepath.Join(dir, skillMarker)
		file := filepath.Join(dir, "SKILL.md")
		text := c.skillText(s)
		if !c.removing() {
			steps = append(steps, fileStep(file, "the "+s.name+" skill", false, func(old []byte, exists bool) ([]byte, bool, error) {
				if exists && readSkillOwners(marker).GeneratedBy != "desk" {
					return nil, false, fmt.Errorf("a skill named %s exists and desk did not write it; rename it, then run desk again", s.name)
				}
				return []byte(text), true, nil
			}))
		}
		verb := "record that " + t.name + " uses the " + s.name + " skill"
		if c.removing() {
			verb = "record that " + t.name + " no longer uses the " + s.name + " skill"
		}
		steps = append(steps, fileStep(marker, verb, false, func(old []byte, exists bool) ([]byte, bool, error) {
			var o skillOwners
			if exists && (json.Unmarshal(old, &o) != nil || o.GeneratedBy != "desk") {
				return old, true, nil // not desk's: leave it
			}
			if !exists && c.removing() {
				return nil, false, nil
			}
			users := slices.DeleteFunc(o.UsedBy, func(u string) bool { return u == t.name })
			if !c.removing() {
				users = append(users, t.name)
				slices.Sort(users)
			}
			if len(users) == 0 {
				return nil, false, nil
			}
			b, _ := json.MarshalIndent(skillOwners{GeneratedBy: "desk", UsedBy: users}, "", "  ")
			return append(b, '\n'), true, nil
		}))
		if c.removing() && readSkillOwners(marker).GeneratedBy == "desk" {
			// The marker step just ran: no marker left means no tool uses
			// the skill any more.
			st := fileStep(file, "remove the "+s.name+" skill once no installed tool uses it", false, func(old []byte, exists bool) ([]byte, bool, error) {
				if _, markerLeft, _ := readMaybe(marker); markerLeft || !exists {
					return old, exists, nil
				}
				return nil, false, nil
			})
			st.late = true
			steps = append(steps, st)
		}
	}
	return steps
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

func readSkillOwners(path string) skillOwners {
	var o skillOwners
	if b, ok, _ := readMaybe(path); ok {
		json.Unmarshal(b, &o)
	}
	return o
}
