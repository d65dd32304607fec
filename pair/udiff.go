package pair

import (
	"fmt"
	"path"
	"strings"
)

// fileDiff writes the unified diff, in the form git apply takes, that
// turns old into new for the file at rel (a path relative to the working
// folder, with slashes). created says the file does not exist yet. It
// returns "" when nothing changes.
func fileDiff(rel, old, new string, created bool) string {
	if old == new && !created {
		return ""
	}
	a, b := diffSplit(old), diffSplit(new)
	ops := lcsOps(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "diff --git a/%s b/%s\n", rel, rel)
	if created {
		out.WriteString("new file mode 100644\n--- /dev/null\n")
	} else {
		fmt.Fprintf(&out, "--- a/%s\n", rel)
	}
	fmt.Fprintf(&out, "+++ b/%s\n", rel)
	const context = 3
	for i := 0; i < len(ops); {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end += min(context, run-end)
				break
			}
			end = run
		}
		h := ops[start:end]
		var an, bn int
		for _, o := range h {
			if o.kind != '+' {
				an++
			}
			if o.kind != '-' {
				bn++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(h[0].ai, an), hunkRange(h[0].bi, bn))
		for _, o := range h {
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(o.text, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// diffSplit cuts s into lines that keep their newline, so that a last
// line without one differs from the same text with one.
func diffSplit(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

type lineOp struct {
	kind   byte // ' ', '-', '+'
	text   string
	ai, bi int // positions in a and b before the op
}

// lcsOps is a shortest edit script from the longest common subsequence,
// after the common lines at both ends are peeled off; a middle too large
// for the table is shown replaced whole.
func lcsOps(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for k := 0; k < pre; k++ {
		ops = append(ops, lineOp{' ', a[k], k, k})
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(am), len(bm)
	if n*m > 16_000_000 {
		for i := range am {
			ops = append(ops, lineOp{'-', am[i], pre + i, pre})
		}
		for j := range bm {
			ops = append(ops, lineOp{'+', bm[j], pre + n, pre + j})
		}
	} else {
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && am[i] == bm[j]:
				ops = append(ops, lineOp{' ', am[i], pre + i, pre + j})
				i++
				j++
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, lineOp{'-', am[i], pre + i, pre + j})
				i++
			default:
				ops = append(ops, lineOp{'+', bm[j], pre + i, pre + j})
				j++
			}
		}
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, lineOp{' ', a[len(a)-suf+k], len(a) - suf + k, len(b) - suf + k})
	}
	return ops
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffFiles returns the paths a unified diff changes, as its +++ and ---
// lines name them (git's a/ and b/ dropped), and the first path that would
// leave the working folder (absolute, or climbing with ..), if any.
func diffFiles(diff string) (files []string, escape string) {
	seen := map[string]bool{}
	for _, line := range strings.Split(diff, "\n") {
		var p string
		switch {
		case strings.HasPrefix(line, "+++ "):
			p = line[4:]
		case strings.HasPrefix(line, "--- "):
			p = line[4:]
		default:
			continue
		}
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // a timestamp after the name
		}
		p = strings.TrimSpace(p)
		if p == "/dev/null" || p == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(p, "a/"); ok {
			p = rest
		} else if rest, ok := strings.CutPrefix(p, "b/"); ok {
			p = rest
		}
		if strings.HasPrefix(p, "/") || path.Clean(p) != strings.TrimSuffix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
			if escape == "" {
				escape = p
			}
			continue
		}
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	return files, escape
}
