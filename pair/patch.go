package pair

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// PatchRef names a patch by number or by its file's exact path.
type PatchRef struct {
	N    int
	Path string
}

// PatchAnswer answers the patch tools.
type PatchAnswer struct {
	Patch *Patch `json:"patch"`
	// Apply is how the writer applies a verified patch.
	Apply string `json:"apply,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Reserve makes an empty patch file, mode 0600, in the pair's patch
// folder for the calling critic to write its unified diff into; Seal
// then records its SHA-256. Refused for the writer and in audit mode.
func (s *Service) Reserve(ctx context.Context, c Caller, summary string) (*PatchAnswer, error) {
	summary = strings.TrimSpace(summary)
	var out *PatchAnswer
	var made string
	err := s.act(ctx, c, "pair_patch_reserve", func(k *call) error {
		if err := k.patchCritic("pair_patch_reserve"); err != nil {
			return err
		}
		if len(summary) > MaxRationale {
			return tooLarge("the summary", len(summary), MaxRationale, "one or two sentences are enough")
		}
		pt := &Patch{Role: k.role, State: PatchReserved, Round: k.p.Round, Summary: summary, ReservedAt: k.at}
		if err := k.tx.AddPatch(pt); err != nil {
			return err
		}
		path, err := s.createPatchFile(k.p.ID, pt.N, k.role, nil)
		if err != nil {
			return err
		}
		made, pt.Path = path, path
		if err := k.tx.SavePatch(pt); err != nil {
			return err
		}
		if _, err := k.log(EventPatch, fmt.Sprintf("%s reserved patch #%d", k.role, pt.N), map[string]any{"patch": pt.N, "state": pt.State, "path": path}); err != nil {
			return err
		}
		out = &PatchAnswer{Patch: pt, Note: "write the unified diff (paths relative to " + k.p.Folder + ") into this file, then pair_patch_seal"}
		return nil
	})
	if err != nil && made != "" {
		os.Remove(made)
	}
	return out, err
}

// patchCritic refuses the writer and audit mode for a critic's patch step.
func (k *call) patchCritic(tool string) error {
	if err := k.notAudit(tool); err != nil {
		return err
	}
	return k.needCritic(tool)
}

// createPatchFile makes patch file n of a pair, mode 0600, never over an
// existing one, holding data.
func (s *Service) createPatchFile(pairID string, n int, role string, data []byte) (string, error) {
	dir := s.PatchDir(pairID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make the patch folder: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%04d-%s.diff", n, role))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("make the patch file: %w", err)
	}
	// The mode is the point: whatever the umask left, the file is the
	// owner's alone.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	// No fsync: a patch whose bytes a crash lost no longer matches its
	// seal, and the seal halts its apply; the record says what was sealed.
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// findPatch resolves a reference among the pair's patches. A path must be
// exactly one of the pair's patch files: a pattern, a path outside the
// patch folder or one that is no patch's is refused.
func (s *Service) findPatch(k *call, ref PatchRef) (*Patch, error) {
	if ref.N == 0 && ref.Path == "" {
		return nil, refuse(RuleUnknownPatch, invalid, "name the patch: its number (patch) or its file's path (path)").
			WithHint("pair_state lists the patches")
	}
	if ref.Path != "" {
		if err := s.checkPatchPath(k.p.ID, ref.Path); err != nil {
			return nil, err
		}
	}
	var pt *Patch
	var err error
	if ref.N != 0 {
		pt, err = k.tx.Patch(ref.N)
	} else {
		pt, err = k.tx.PatchAt(ref.Path)
	}
	if err != nil {
		return nil, err
	}
	if pt == nil {
		what := fmt.Sprintf("#%d", ref.N)
		if ref.N == 0 {
			what = ref.Path
		}
		return nil, refuse(RuleUnknownPatch, notFound, "pair %s has no patch %s", k.p.ID, what).WithHint("pair_state lists the patches")
	}
	if ref.N != 0 && ref.Path != "" && pt.Path != ref.Path {
		return nil, refuse(RuleUnknownPatch, invalid, "patch #%d's file is %s, not %s", pt.N, pt.Path, ref.Path).
			WithHint("give the number or the path, not both")
	}
	return pt, nil
}

// checkPatchPath refuses a path that is not one exact file of the pair's
// patch folder.
func (s *Service) checkPatchPath(pairID, p string) error {
	if strings.ContainsAny(p, "*?[") {
		return refuse(RuleGlob, invalid, "%q is a pattern: give one patch file's exact path", clip(p, 200)).
			WithHint("pair_state lists each patch with its path")
	}
	dir := s.PatchDir(pairID)
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || filepath.Dir(p) != dir {
		return refuse(RuleOutsideFolder, forbidden, "%s is not a file of pair %s's patch folder %s", clip(p, 200), pairID, dir).
			WithHint("give the absolute path pair_patch_reserve or pair_propose answered with")
	}
	return nil
}

// readPatch reads a patch file, refusing one that is not a regular file
// of its own (a link could make the seal cover another file) or that is
// over the cap.
func readPatch(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refuse(RulePatchState, conflict, "the patch file %s is gone", path).WithHint("reserve a new patch")
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse(RuleOutsideFolder, forbidden, "the patch file %s is not a regular file", path).WithHint("write the diff into the file itself, not a link")
	}
	if fi.Size() > MaxPatch {
		return nil, tooLarge("the patch", int(fi.Size()), MaxPatch, "split the change into several patches")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPatch+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxPatch {
		return nil, tooLarge("the patch", len(data), MaxPatch, "split the change into several patches")
	}
	return data, nil
}

func seal(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// checkDiff refuses a file that holds no unified diff, or one whose paths
// leave the working folder, and returns the paths it changes.
func checkDiff(data []byte) ([]string, error) {
	text := string(data)
	files, escape := diffFiles(text)
	switch {
	case escape != "":
		return nil, refuse(RuleOutsideFolder, forbidden, "the diff changes %s, outside the pair's folder", clip(escape, 200)).
			WithHint("name files relative to the working folder, e.g. a/src/x.go and b/src/x.go")
	case len(files) == 0 || !strings.Contains(text, "\n@@ ") && !strings.HasPrefix(text, "@@ "):
		return nil, refuse(RuleNotDiff, invalid, "the patch file holds no unified diff").
			WithHint("write the output of git diff (--- a/path, +++ b/path, @@ hunks) into it")
	}
	return files, nil
}

// Seal records the SHA-256 of the calling critic's reserved patch file,
// after checking that it is a unified diff inside the folder, and tells
// the writer.
func (s *Service) Seal(ctx context.Context, c Caller, ref PatchRef) (*PatchAnswer, error) {
	var out *PatchAnswer
	err := s.act(ctx, c, "pair_patch_seal", func(k *call) error {
		if err := k.patchCritic("pair_patch_seal"); err != nil {
			return err
		}
		pt, err := s.findPatch(k, ref)
		if err != nil {
			return err
		}
		if pt.Role != k.role {
			return refuse(RuleRole, forbidden, "patch #%d is %s's: only its critic seals it", pt.N, pt.Role).WithHint("reserve a patch of your own")
		}
		if pt.State != PatchReserved {
			return refuse(RulePatchState, conflict, "patch #%d is %s, not reserved", pt.N, pt.State).
				WithHint("a seal is final: reserve a new patch for a new change")
		}
		data, err := readPatch(pt.Path)
		if err != nil {
			return err
		}
		files, err := checkDiff(data)
		if err != nil {
			return err
		}
		at := k.at
		pt.State, pt.Seal, pt.Size, pt.Files, pt.SealedAt = PatchSealed, seal(data), len(data), files, &at
		if err := k.tx.SavePatch(pt); err != nil {
			return err
		}
		if err := k.announcePatch(pt); err != nil {
			return err
		}
		out = &PatchAnswer{Patch: pt, Note: "sealed: the writer verifies it against this seal before applying it"}
		return nil
	})
	return out, err
}

// announcePatch logs a sealed patch and writes to the writer (or, with
// nobody writing, to every peer).
func (k *call) announcePatch(pt *Patch) error {
	text := fmt.Sprintf("%s sealed patch #%d (%s, %d bytes, sha256 %s…)", k.role, pt.N, strings.Join(pt.Files, ", "), pt.Size, pt.Seal[:12])
	if pt.Summary != "" {
		text += ": " + pt.Summary
	}
	e, err := k.log(EventPatch, text, map[string]any{"patch": pt.N, "state": pt.State, "sha256": pt.Seal, "files": pt.Files, "path": pt.Path})
	if err != nil {
		return err
	}
	to := k.p.peers(k.role)
	if k.p.Writer != "" && k.p.Writer != k.role {
		to = []string{k.p.Writer}
	}
	body := fmt.Sprintf("Patch #%d is sealed for you: %s\nFile: %s\nVerify it with pair_patch_verify patch=%d, apply it, then report with pair_patch_applied.",
		pt.N, strings.Join(pt.Files, ", "), pt.Path, pt.N)
	if pt.Summary != "" {
		body = pt.Summary + "\n" + body
	}
	for _, r := range to {
		if err := k.tx.Send(&Letter{From: k.role, To: r, Body: body, Event: e.ID}); err != nil {
			return err
		}
	}
	return nil
}

// Verify checks a sealed patch's file against its seal, just before the
// writer applies it. Any change to the file since the seal halts the
// apply: the patch cannot be applied until its file matches again.
func (s *Service) Verify(ctx context.Context, c Caller, ref PatchRef) (*PatchAnswer, error) {
	var out *PatchAnswer
	err := s.act(ctx, c, "pair_patch_verify", func(k *call) error {
		if err := k.notAudit("pair_patch_verify"); err != nil {
			return err
		}
		if err := k.needWriter("pair_patch_verify"); err != nil {
			return err
		}
		pt, err := s.findPatch(k, ref)
		if err != nil {
			return err
		}
		if pt.State != PatchSealed && pt.State != PatchVerified {
			return refuse(RulePatchState, conflict, "patch #%d is %s: only a sealed patch is verified", pt.N, pt.State).
				WithHint("the critic seals it first with pair_patch_seal")
		}
		if err := matchesSeal(pt); err != nil {
			return err
		}
		at := k.at
		pt.State, pt.VerifiedAt = PatchVerified, &at
		if err := k.tx.SavePatch(pt); err != nil {
			return err
		}
		if _, err := k.log(EventPatch, fmt.Sprintf("%s verified patch #%d against its seal", k.role, pt.N), map[string]any{"patch": pt.N, "state": pt.State}); err != nil {
			return err
		}
		out = &PatchAnswer{Patch: pt, Apply: fmt.Sprintf("git -C %s apply --check %s && git -C %s apply %s", shellQuote(k.p.Folder), shellQuote(pt.Path), shellQuote(k.p.Folder), shellQuote(pt.Path)),
			Note: "apply it now and report with pair_patch_applied; the seal is checked again then"}
		return nil
	})
	return out, err
}

// matchesSeal refuses a patch whose file is no longer what was sealed.
func matchesSeal(pt *Patch) error {
	data, err := readPatch(pt.Path)
	if err != nil {
		return err
	}
	if got := seal(data); got != pt.Seal {
		return refuse(RuleSealMismatch, conflict, "patch #%d's file changed since it was sealed (sealed sha256 %s…, now %s…): the apply is halted", pt.N, pt.Seal[:12], got[:12]).
			WithHint("do not apply it: ask " + pt.Role + " to propose the change again as a new patch")
	}
	return nil
}

// Applied records whether the writer's apply of a verified patch
// succeeded, after checking the seal once more.
func (s *Service) Applied(ctx context.Context, c Caller, ref PatchRef, ok bool, note string) (*PatchAnswer, error) {
	note = strings.TrimSpace(note)
	var out *PatchAnswer
	err := s.act(ctx, c, "pair_patch_applied", func(k *call) error {
		if err := k.notAudit("pair_patch_applied"); err != nil {
			return err
		}
		if err := k.needWriter("pair_patch_applied"); err != nil {
			return err
		}
		pt, err := s.findPatch(k, ref)
		if err != nil {
			return err
		}
		if pt.State != PatchVerified {
			return refuse(RulePatchState, conflict, "patch #%d is %s: verify it (pair_patch_verify) just before applying it", pt.N, pt.State).
				WithHint("pair_patch_verify, apply, then pair_patch_applied")
		}
		if err := matchesSeal(pt); err != nil {
			return err
		}
		if len(note) > MaxRationale {
			return tooLarge("the note", len(note), MaxRationale, "one or two sentences are enough")
		}
		at := k.at
		pt.State, pt.DoneAt, pt.Note = PatchApplied, &at, note
		if !ok {
			pt.State = PatchFailed
			if note == "" {
				return refuse(RuleReason, invalid, "a failed apply needs a note saying what failed").WithHint("give git apply's error in note")
			}
		}
		if err := k.tx.SavePatch(pt); err != nil {
			return err
		}
		text := fmt.Sprintf("%s applied patch #%d", k.role, pt.N)
		if !ok {
			text = fmt.Sprintf("%s could not apply patch #%d", k.role, pt.N)
		}
		if note != "" {
			text += ": " + note
		}
		if _, err := k.log(EventPatch, text, map[string]any{"patch": pt.N, "state": pt.State}); err != nil {
			return err
		}
		out = &PatchAnswer{Patch: pt}
		if !ok {
			out.Note = "a failed patch blocks the round until it is released (pair_patch_release) or proposed again"
		}
		return nil
	})
	return out, err
}

// ReleasePatch deletes one patch file, named by its exact path (never a
// pattern), and records it released.
func (s *Service) ReleasePatch(ctx context.Context, c Caller, path string) (*PatchAnswer, error) {
	path = strings.TrimSpace(path)
	var out *PatchAnswer
	var remove string
	err := s.act(ctx, c, "pair_patch_release", func(k *call) error {
		if path == "" {
			return refuse(RuleUnknownPatch, invalid, "pair_patch_release needs the patch file's exact path").WithHint("pair_state lists each patch with its path")
		}
		pt, err := s.findPatch(k, PatchRef{Path: path})
		if err != nil {
			return err
		}
		if pt.State == PatchReleased {
			return refuse(RulePatchState, conflict, "patch #%d was released already", pt.N).WithHint("nothing to do")
		}
		at := k.at
		if pt.State != PatchApplied {
			pt.State, pt.DoneAt = PatchReleased, &at
		}
		if err := k.tx.SavePatch(pt); err != nil {
			return err
		}
		if _, err := k.log(EventPatch, fmt.Sprintf("%s released patch #%d and deleted its file", k.role, pt.N), map[string]any{"patch": pt.N, "state": pt.State, "path": pt.Path}); err != nil {
			return err
		}
		remove = pt.Path
		out = &PatchAnswer{Patch: pt}
		return nil
	})
	if err == nil && remove != "" {
		if rerr := os.Remove(remove); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			out.Note = "released, but the file could not be deleted: " + rerr.Error()
		}
	}
	return out, err
}

// ProposedFile is one file of a proposal: its path in the working folder
// and the whole content the critic wants it to have.
type ProposedFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Propose is the critic's one call for a patch: desk builds the unified
// diff between the working folder's files and the contents given, writes
// it to a new patch file (mode 0600), seals it and tells the writer. The
// folder's files are only read.
func (s *Service) Propose(ctx context.Context, c Caller, files []ProposedFile, summary string) (*PatchAnswer, error) {
	summary = strings.TrimSpace(summary)
	var out *PatchAnswer
	var made string
	err := s.act(ctx, c, "pair_propose", func(k *call) error {
		if err := k.patchCritic("pair_propose"); err != nil {
			return err
		}
		if len(files) == 0 {
			return refuse(RuleEmpty, invalid, "pair_propose needs files: [{path, content}]").WithHint("give each file's path and its whole new content")
		}
		if len(summary) > MaxRationale {
			return tooLarge("the summary", len(summary), MaxRationale, "one or two sentences are enough")
		}
		var diff strings.Builder
		var names []string
		for _, f := range files {
			rel, abs, err := inFolder(k.p.Folder, f.Path)
			if err != nil {
				return err
			}
			if slices.Contains(names, rel) {
				return refuse(RuleEmpty, invalid, "%s is given twice", rel).WithHint("give each file once")
			}
			old, err := os.ReadFile(abs)
			created := errors.Is(err, fs.ErrNotExist)
			if err != nil && !created {
				return refuse(RuleOutsideFolder, invalid, "%s cannot be read: %v", rel, err).WithHint("propose files of the working folder")
			}
			d := fileDiff(rel, string(old), f.Content, created)
			if d == "" {
				continue
			}
			names = append(names, rel)
			diff.WriteString(d)
			if diff.Len() > MaxPatch {
				return tooLarge("the patch", diff.Len(), MaxPatch, "split the change into several proposals")
			}
		}
		if diff.Len() == 0 {
			return refuse(RuleEmpty, invalid, "the proposal changes nothing: every file already has that content").WithHint("check the paths and the contents")
		}
		data := []byte(diff.String())
		pt := &Patch{Role: k.role, State: PatchSealed, Round: k.p.Round, Summary: summary, ReservedAt: k.at}
		if err := k.tx.AddPatch(pt); err != nil {
			return err
		}
		path, err := s.createPatchFile(k.p.ID, pt.N, k.role, data)
		if err != nil {
			return err
		}
		made = path
		at := k.at
		pt.Path, pt.Seal, pt.Size, pt.Files, pt.SealedAt = path, seal(data), len(data), names, &at
		if err := k.tx.SavePatch(pt); err != nil {
			return err
		}
		if err := k.announcePatch(pt); err != nil {
			return err
		}
		out = &PatchAnswer{Patch: pt, Note: "proposed and sealed; the writer verifies and applies it"}
		return nil
	})
	if err != nil && made != "" {
		os.Remove(made)
	}
	return out, err
}

// inFolder resolves a path given relative to the working folder (or
// absolute inside it) and refuses one that leaves it, through .. or a
// link.
func inFolder(folder, p string) (rel, abs string, err error) {
	p = strings.TrimSpace(p)
	outside := func() error {
		return refuse(RuleOutsideFolder, forbidden, "%s is outside the pair's folder %s", clip(p, 200), folder).
			WithHint("give paths relative to the working folder")
	}
	if p == "" {
		return "", "", refuse(RuleEmpty, invalid, "a proposed file needs a path").WithHint("give paths relative to the working folder")
	}
	if strings.ContainsAny(p, "*?[") {
		return "", "", refuse(RuleGlob, invalid, "%q is a pattern: give one file's path", clip(p, 200)).WithHint("list each file on its own")
	}
	abs = p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(folder, abs)
	}
	abs = filepath.Clean(abs)
	r, err := filepath.Rel(folder, abs)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", outside()
	}
	// A link inside the folder may lead out of it: the nearest existing
	// parent must resolve inside the folder too.
	realFolder, err := filepath.EvalSymlinks(folder)
	if err != nil {
		return "", "", refuse(RuleOutsideFolder, conflict, "the pair's folder %s cannot be read: %v", folder, err).WithHint("check that the folder still exists")
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			rr, err := filepath.Rel(realFolder, real)
			if err != nil || rr == ".." || strings.HasPrefix(rr, ".."+string(filepath.Separator)) {
				return "", "", outside()
			}
			break
		}
		if dir == folder || dir == filepath.Dir(dir) {
			break
		}
	}
	return filepath.ToSlash(r), abs, nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
