package install

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// jsonSpec describes what desk keeps in one JSON or JSONC settings file:
// members it owns (an MCP server entry) and hook groups it appends to the
// client's event arrays. Everything else in the file is the user's.
type jsonSpec struct {
	members []jsonMember
	hooks   *jsonHooks
	// seed holds top-level members written only into a file desk creates
	// (a schema version the client expects), removed with it.
	seed obj
}

// jsonMember is one member desk owns, at parent.key.
type jsonMember struct {
	parent []string
	key    string
	value  any
	// ours recognises an existing value as desk's; anything else under
	// the same name is refused, never overwritten.
	ours func(v any) bool
}

// jsonHooks are desk's hook groups under parent (usually ["hooks"]), one
// per event.
type jsonHooks struct {
	parent []string
	order  []string
	groups map[string]obj
}

func dotted(path []string, key string) string {
	return strings.Join(append(append([]string(nil), path...), key), ".")
}

func notJSON(err error) error {
	return fmt.Errorf("it is not valid JSON (%v); fix it, then run desk again", err)
}

// jsonEditor returns the edit that installs spec into the file at path (or
// removes it, with remove), recording in rec what desk creates.
func jsonEditor(path string, spec jsonSpec, rec *receipt, remove bool) editFunc {
	if remove {
		return func(old []byte, exists bool) ([]byte, bool, error) {
			if !exists {
				return nil, false, nil
			}
			out, empty, err := uninstallJSON(old, spec, rec.CreatedKeys[path], rec.createdFile(path))
			if err != nil {
				return nil, false, err
			}
			if empty {
				return nil, false, nil
			}
			return out, true, nil
		}
	}
	return func(old []byte, exists bool) ([]byte, bool, error) {
		src := old
		creating := !exists || len(bytes.TrimSpace(old)) == 0
		if creating {
			src = []byte("{}\n")
		}
		out, keys, err := installJSON(src, spec, creating)
		if err != nil {
			return nil, false, err
		}
		rec.addKeys(path, keys)
		if !exists {
			rec.addFile(path)
		}
		return out, true, nil
	}
}

func installJSON(src []byte, spec jsonSpec, creating bool) ([]byte, [][]string, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, notJSON(err)
	}
	if root.kind != '{' {
		return nil, nil, errors.New("its top level is not a JSON object; fix it, then run desk again")
	}
	var created [][]string
	if creating {
		for _, m := range spec.seed {
			if src, _, err = setMember(src, nil, m.K, m.V); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, m := range spec.members {
		root, _ := parseJSONC(src)
		n, err := lookup(root, append(append([]string(nil), m.parent...), m.key))
		if err != nil {
			return nil, nil, fmt.Errorf("%v, so desk cannot add %s; fix it, then run desk again", err, dotted(m.parent, m.key))
		}
		if n != nil && !m.ours(n.value()) {
			return nil, nil, fmt.Errorf("it already has %s, which desk did not write; rename or remove that entry, then run desk again", dotted(m.parent, m.key))
		}
		var keys [][]string
		if src, keys, err = setMember(src, m.parent, m.key, m.value); err != nil {
			return nil, nil, fmt.Errorf("%v, so desk cannot add %s; fix it, then run desk again", err, dotted(m.parent, m.key))
		}
		created = append(created, keys...)
	}
	if h := spec.hooks; h != nil {
		for _, ev := range h.order {
			path := append(append([]string(nil), h.parent...), ev)
			root, _ := parseJSONC(src)
			arr, err := lookup(root, path)
			if err != nil {
				return nil, nil, fmt.Errorf("%v, so desk cannot add its %s hooks; fix it, then run desk again", err, ev)
			}
			if arr != nil && arr.kind != '[' {
				return nil, nil, fmt.Errorf("%s is not a list of hook groups; fix it, then run desk again", strings.Join(path, "."))
			}
			want := h.groups[ev]
			if arr != nil && onlyDeskGroupIs(arr, want) {
				continue
			}
			if src, err = removeDeskHooks(src, path); err != nil {
				return nil, nil, err
			}
			var keys [][]string
			if src, keys, err = appendElem(src, path, want); err != nil {
				return nil, nil, fmt.Errorf("%v, so desk cannot add its %s hooks; fix it, then run desk again", err, ev)
			}
			created = append(created, keys...)
		}
	}
	return src, created, nil
}

// uninstallJSON removes desk's members and hooks, then the containers desk
// created if they are empty; empty=true means the file should go (desk
// created it and nothing else is left).
func uninstallJSON(src []byte, spec jsonSpec, createdKeys [][]string, createdFile bool) (out []byte, empty bool, err error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, false, notJSON(err)
	}
	if root.kind != '{' {
		return nil, false, errors.New("its top level is not a JSON object; fix it, then run desk again")
	}
	for _, m := range spec.members {
		root, _ := parseJSONC(src)
		n, _ := lookup(root, append(append([]string(nil), m.parent...), m.key))
		if n != nil && m.ours(n.value()) {
			if src, err = removeMember(src, m.parent, m.key); err != nil {
				return nil, false, err
			}
		}
	}
	if h := spec.hooks; h != nil {
		root, _ := parseJSONC(src)
		if events, _ := lookup(root, h.parent); events != nil && events.kind == '{' {
			var names []string
			for _, m := range events.members {
				names = append(names, m.key)
			}
			for _, ev := range names {
				if src, err = removeDeskHooks(src, append(append([]string(nil), h.parent...), ev)); err != nil {
					return nil, false, err
				}
			}
		}
	}
	// Deepest first, so a parent is looked at after its children went.
	keys := append([][]string(nil), createdKeys...)
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if len(keys[j]) > len(keys[i]) {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	for _, k := range keys {
		if src, err = removeIfEmpty(src, k); err != nil {
			return nil, false, err
		}
	}
	if createdFile {
		for _, m := range spec.seed {
			root, _ := parseJSONC(src)
			if n := root.member(m.K); n != nil && sameJSON(n.value(), m.V) {
				if src, err = removeMember(src, nil, m.K); err != nil {
					return nil, false, err
				}
			}
		}
		root, err := parseJSONC(src)
		if err == nil && root.kind == '{' && len(root.members) == 0 && !bytes.Contains(src, []byte("//")) && !bytes.Contains(src, []byte("/*")) {
			return nil, true, nil
		}
	}
	return src, false, nil
}

// isDeskHook recognises a hook entry desk wrote.
func isDeskHook(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	cmd, _ := m["command"].(string)
	return isDeskHookCommand(cmd)
}

// groupHooks returns the hook entries of a Claude-style group.
func groupHooks(v any) []any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	hs, _ := m["hooks"].([]any)
	return hs
}

// onlyDeskGroupIs reports whether the array already holds exactly one
// group of desk's hooks, equal to want, and no desk hook anywhere else.
func onlyDeskGroupIs(arr *jnode, want obj) bool {
	found := 0
	for _, e := range arr.elems {
		hs := groupHooks(e.value())
		desk := 0
		for _, h := range hs {
			if isDeskHook(h) {
				desk++
			}
		}
		switch {
		case desk == 0:
		case desk == len(hs) && sameJSON(e.value(), want):
			found++
		default:
			return false
		}
	}
	return found == 1
}

// removeDeskHooks removes desk's hooks from the hook-group array at path:
// whole groups that hold only desk's hooks, and single desk hooks from a
// group the user also put their own hooks in.
func removeDeskHooks(src []byte, path []string) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	arr, _ := lookup(root, path)
	if arr == nil || arr.kind != '[' {
		return src, nil
	}
	for i := len(arr.elems) - 1; i >= 0; i-- {
		hs := groupHooks(arr.elems[i].value())
		desk := 0
		for _, h := range hs {
			if isDeskHook(h) {
				desk++
			}
		}
		switch {
		case desk == 0:
		case desk == len(hs):
			src = removeItem(src, arr, i)
		default:
			hp := append(append([]string(nil), path...), fmt.Sprintf("#%d", i), "hooks")
			if src, err = removeElems(src, hp, isDeskHook); err != nil {
				return nil, err
			}
		}
		// Offsets before i are unchanged by edits at i, so arr stays valid.
	}
	return src, nil
}
