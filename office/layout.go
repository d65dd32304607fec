// Package office holds the rules of the office view: what a layout is (a
// grid of floor and wall tiles, the furniture standing on it, the named
// areas painted on its floor), what makes one valid, the office that ships
// with desk, and the rules of keeping a layout and the owner's seat
// choices (Store) in a Backend: files of the data folder for the embedded
// desk (Folder), the database for the team server.
//
// The web page draws the office; it asks this package, through the HTTP
// API, what it may draw. Every rule a saved layout obeys is here, in
// Check, so the page, an imported file and a hand-edited office.json are
// held to the same ones.
package office

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"desk"
)

// Version is the layout format this desk reads and writes.
const Version = 1

// Limits of a layout.
const (
	MaxSide      = 64      // tiles across and down
	MaxFurniture = 1024    // items
	MaxAreas     = 32      // named areas
	MaxName      = 40      // characters in an area's name
	MaxFolder    = 1024    // bytes in an area's folder
	MaxBody      = 1 << 20 // bytes of JSON a layout may take (a 64×64 office is about 60 kB)
)

// Tile kinds, as numbers in Layout.Tiles.
const (
	Void       = 0 // outside the office: not drawn, not walked on
	Wall       = 1
	FloorFirst = 2 // the first of the floor patterns
	FloorLast  = 9 // the last; FloorFirst+n is pattern n
)

// Layout is an office: a grid of Cols×Rows tiles (row-major), the
// furniture on it and its named areas. Revision counts the saves: a save
// carries the revision it was made on, and one made on an older revision
// than the file's is refused (see Store.Save).
type Layout struct {
	Version   int      `json:"version"`
	Cols      int      `json:"cols"`
	Rows      int      `json:"rows"`
	Tiles     []int    `json:"tiles"`
	Colors    []string `json:"colors"` // one per tile: "#rrggbb", or "" for the kind's own colour
	Furniture []Item   `json:"furniture"`
	Areas     []Area   `json:"areas"`
	Revision  int64    `json:"revision"`
}

// Item is one piece of furniture. Col and Row are its top-left footprint
// tile; Rot turns it a quarter at a time, clockwise from facing down (0):
// 1 faces left, 2 up, 3 right. A chair faces the way its sitter looks.
type Item struct {
	UID   string `json:"uid"`
	Type  string `json:"type"`
	Col   int    `json:"col"`
	Row   int    `json:"row"`
	Rot   int    `json:"rot"`
	Color string `json:"color"` // "#rrggbb", or "" for the item's own colours
}

// Area is a named part of the floor. Agents of its project (or working in
// its folder) take its seats first.
type Area struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Color   string `json:"color"`
	Project string `json:"project"` // a project slug, or ""
	Folder  string `json:"folder"`  // an absolute folder, or ""
	Tiles   []int  `json:"tiles"`   // tile indices, row*cols+col
}

// Kind describes a type of furniture: its footprint (W×H tiles when Rot is
// 0 or 2, H×W when it is turned), where it may stand and what it does.
type Kind struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	W       int    `json:"w"`
	H       int    `json:"h"`
	Rotates bool   `json:"rotates"` // it may be turned; others keep Rot 0
	Surface bool   `json:"surface"` // it stands on a desk
	OnWall  bool   `json:"on_wall"` // it hangs on (or is) a wall tile
	Seat    bool   `json:"seat"`    // an agent sits on it
	Blocks  bool   `json:"blocks"`  // characters walk around it
	Screen  bool   `json:"screen"`  // it lights up while the agent facing it works
	Walk    bool   `json:"walk"`    // characters walk through it (a door in a wall)
}

// Kinds is every type of furniture a layout may hold, in the editor's order.
var Kinds = []Kind{
	{Type: "desk", Name: "Desk", W: 2, H: 1, Rotates: true, Blocks: true},
	{Type: "chair", Name: "Chair", W: 1, H: 1, Rotates: true, Seat: true, Blocks: true},
	{Type: "computer", Name: "Computer", W: 1, H: 1, Rotates: true, Surface: true, Screen: true},
	{Type: "shelf", Name: "Shelf", W: 2, H: 1, Blocks: true},
	{Type: "plant", Name: "Plant", W: 1, H: 1, Blocks: true},
	{Type: "cooler", Name: "Water cooler", W: 1, H: 1, Blocks: true},
	{Type: "sofa", Name: "Sofa", W: 2, H: 1, Rotates: true, Blocks: true},
	{Type: "door", Name: "Door", W: 1, H: 1, OnWall: true, Walk: true},
	{Type: "whiteboard", Name: "Whiteboard", W: 2, H: 1, OnWall: true},
}

// FloorNames are the floor patterns, FloorFirst first.
var FloorNames = []string{"Planks", "Tiles", "Carpet", "Stone", "Parquet", "Checker", "Concrete", "Terrazzo"}

// KindOf returns the kind of a furniture type.
func KindOf(typ string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Type == typ {
			return k, true
		}
	}
	return Kind{}, false
}

// Footprint returns the item's size in tiles, turned as it stands.
func (k Kind) Footprint(rot int) (w, h int) {
	if rot%2 == 1 {
		return k.H, k.W
	}
	return k.W, k.H
}

var (
	uidPattern    = desk.LazyRegexp(`^[A-Za-z0-9_-]{1,40}$`)
	areaIDPattern = desk.LazyRegexp(`^[a-z0-9][a-z0-9-]{0,39}$`)
	colorPattern  = desk.LazyRegexp(`^#[0-9a-fA-F]{6}$`)
)

// Decode reads a layout from JSON, strictly: one object, no unknown
// fields, numbers where numbers go. It does not Check the layout.
func Decode(b []byte) (*Layout, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, desk.Errorf(desk.Invalid, "the layout is empty: send a JSON object with version, cols, rows, tiles, furniture and areas")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l Layout
	if err := dec.Decode(&l); err != nil {
		return nil, jsonProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, desk.Errorf(desk.Invalid, "the layout is not one JSON object: there is more after it")
	}
	return &l, nil
}

// jsonProblem says what is wrong with JSON that did not decode, in the
// layout's own words rather than Go's.
func jsonProblem(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return desk.Errorf(desk.Invalid, "the layout is not JSON: %v (at byte %d)", syn, syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return desk.Errorf(desk.Invalid, "the layout must be a JSON object, not %s", typ.Value)
		}
		return desk.Errorf(desk.Invalid, "%s: expected %s, got %s", field, jsonType(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return desk.Errorf(desk.Invalid, "the layout is not JSON: it ends too early")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field") {
		return desk.Errorf(desk.Invalid, "the layout has an %s", msg).
			WithHint("a layout has version, cols, rows, tiles, colors, furniture, areas and revision")
	}
	return desk.Errorf(desk.Invalid, "the layout is not valid JSON: %s", msg)
}

func jsonType(goKind string) string {
	switch goKind {
	case "int", "int64":
		return "a whole number"
	case "string":
		return "a string"
	case "slice":
		return "a list"
	case "struct":
		return "an object"
	}
	return goKind
}

// Check applies every rule of a layout and normalises it (colours in
// lower case, missing lists empty). The first broken rule is the error,
// named by where it is ("furniture[3] (desk d4): ...").
func (l *Layout) Check() error {
	bad := func(format string, args ...any) error { return desk.Errorf(desk.Invalid, format, args...) }
	if l.Version != Version {
		return bad("version: %d is not a layout version this desk reads (it reads %d)", l.Version, Version)
	}
	if l.Cols < 1 || l.Cols > MaxSide || l.Rows < 1 || l.Rows > MaxSide {
		return bad("the office is %d×%d tiles: cols and rows go from 1 to %d", l.Cols, l.Rows, MaxSide)
	}
	n := l.Cols * l.Rows
	if len(l.Tiles) != n {
		return bad("tiles: %d entries for a %d×%d office, which has %d tiles", len(l.Tiles), l.Cols, l.Rows, n)
	}
	for i, t := range l.Tiles {
		if t < Void || t > FloorLast {
			return bad("tiles[%d] (col %d, row %d): %d is not a tile (0 void, 1 wall, %d to %d floors)", i, i%l.Cols, i/l.Cols, t, FloorFirst, FloorLast)
		}
	}
	if l.Colors == nil {
		l.Colors = make([]string, n)
	}
	if len(l.Colors) != n {
		return bad("colors: %d entries for %d tiles: give one per tile (\"\" for the default) or leave colors out", len(l.Colors), n)
	}
	for i, c := range l.Colors {
		if c == "" {
			continue
		}
		if !colorPattern().MatchString(c) {
			return bad("colors[%d]: %q is not a colour: write #rrggbb, or \"\" for the default", i, clip(c))
		}
		l.Colors[i] = strings.ToLower(c)
	}
	if l.Revision < 0 {
		return bad("revision: %d is below 0", l.Revision)
	}
	if err := l.checkFurniture(); err != nil {
		return err
	}
	return l.checkAreas()
}

func (l *Layout) checkFurniture() error {
	bad := func(format string, args ...any) error { return desk.Errorf(desk.Invalid, format, args...) }
	if l.Furniture == nil {
		l.Furniture = []Item{}
	}
	if len(l.Furniture) > MaxFurniture {
		return bad("furniture: %d items, over the limit of %d", len(l.Furniture), MaxFurniture)
	}
	n := l.Cols * l.Rows
	ground := make([]int, n) // item index+1 on each tile, for the items that stand on the floor
	surface := make([]int, n)
	wall := make([]int, n)
	desks := make([]bool, n)
	uids := map[string]bool{}
	// Desks first, so that what stands on one is checked against all of them.
	for i := range l.Furniture {
		it := &l.Furniture[i]
		if it.Type == "desk" {
			k, _ := KindOf("desk")
			w, h := k.Footprint(it.Rot)
			for _, t := range l.footprintTiles(it.Col, it.Row, w, h) {
				desks[t] = true
			}
		}
	}
	for i := range l.Furniture {
		it := &l.Furniture[i]
		where := fmt.Sprintf("furniture[%d]", i)
		if !uidPattern().MatchString(it.UID) {
			return bad("%s: uid %q must be 1 to 40 letters, digits, - or _", where, clip(it.UID))
		}
		where += fmt.Sprintf(" (%s %s)", it.Type, it.UID)
		if uids[it.UID] {
			return bad("%s: another item has the uid %q", where, it.UID)
		}
		uids[it.UID] = true
		k, ok := KindOf(it.Type)
		if !ok {
			return desk.Errorf(desk.Invalid, "furniture[%d]: %q is not a kind of furniture", i, clip(it.Type)).WithHint("kinds: " + kindList())
		}
		if it.Rot < 0 || it.Rot > 3 || (!k.Rotates && it.Rot != 0) {
			if !k.Rotates {
				return bad("%s: rot %d, but a %s does not turn (rot 0)", where, it.Rot, k.Type)
			}
			return bad("%s: rot %d is not 0 to 3", where, it.Rot)
		}
		if it.Color != "" {
			if !colorPattern().MatchString(it.Color) {
				return bad("%s: %q is not a colour: write #rrggbb, or \"\" for its own", where, clip(it.Color))
			}
			it.Color = strings.ToLower(it.Color)
		}
		w, h := k.Footprint(it.Rot)
		if it.Col < 0 || it.Row < 0 || it.Col+w > l.Cols || it.Row+h > l.Rows {
			return bad("%s: its %d×%d footprint at col %d, row %d does not fit in the %d×%d office", where, w, h, it.Col, it.Row, l.Cols, l.Rows)
		}
		layer := ground
		switch {
		case k.Surface:
			layer = surface
		case k.OnWall:
			layer = wall
		}
		for _, t := range l.footprintTiles(it.Col, it.Row, w, h) {
			col, row := t%l.Cols, t/l.Cols
			tile := l.Tiles[t]
			switch {
			case k.OnWall && tile != Wall:
				return bad("%s: col %d, row %d is not a wall; a %s goes on a wall", where, col, row, k.Type)
			case !k.OnWall && tile < FloorFirst:
				return bad("%s: col %d, row %d is %s, not floor", where, col, row, tileWord(tile))
			case k.Surface && !desks[t]:
				return bad("%s: col %d, row %d has no desk under it; a %s stands on a desk", where, col, row, k.Type)
			case !k.Surface && !k.OnWall && it.Type != "desk" && desks[t]:
				return bad("%s: col %d, row %d is taken by a desk", where, col, row)
			}
			if other := layer[t]; other != 0 {
				o := l.Furniture[other-1]
				return bad("%s: col %d, row %d is taken by %s %s", where, col, row, o.Type, o.UID)
			}
			layer[t] = i + 1
		}
	}
	return nil
}

func (l *Layout) checkAreas() error {
	bad := func(format string, args ...any) error { return desk.Errorf(desk.Invalid, format, args...) }
	if l.Areas == nil {
		l.Areas = []Area{}
	}
	if len(l.Areas) > MaxAreas {
		return bad("areas: %d, over the limit of %d", len(l.Areas), MaxAreas)
	}
	owner := make([]int, l.Cols*l.Rows)
	ids := map[string]bool{}
	for i := range l.Areas {
		a := &l.Areas[i]
		where := fmt.Sprintf("areas[%d]", i)
		if !areaIDPattern().MatchString(a.ID) {
			return bad("%s: id %q must be 1 to 40 lower-case letters, digits or -, starting with a letter or digit", where, clip(a.ID))
		}
		if ids[a.ID] {
			return bad("%s: another area has the id %q", where, a.ID)
		}
		ids[a.ID] = true
		where += " (" + a.ID + ")"
		a.Name = desk.CollapseSpace(a.Name)
		if a.Name == "" || utf8.RuneCountInString(a.Name) > MaxName {
			return bad("%s: a name is 1 to %d characters", where, MaxName)
		}
		if !colorPattern().MatchString(a.Color) {
			return bad("%s: %q is not a colour: write #rrggbb", where, clip(a.Color))
		}
		a.Color = strings.ToLower(a.Color)
		if a.Project != "" && !desk.ValidSlug(a.Project) {
			return bad("%s: project %q is not a project slug", where, clip(a.Project))
		}
		if a.Folder != "" && (len(a.Folder) > MaxFolder || !filepath.IsAbs(a.Folder)) {
			return bad("%s: folder %q must be an absolute path of at most %d bytes", where, clip(a.Folder), MaxFolder)
		}
		if a.Tiles == nil {
			a.Tiles = []int{}
		}
		for _, t := range a.Tiles {
			if t < 0 || t >= len(l.Tiles) {
				return bad("%s: tile %d is outside the %d×%d office (0 to %d)", where, t, l.Cols, l.Rows, len(l.Tiles)-1)
			}
			if l.Tiles[t] < FloorFirst {
				return bad("%s: tile %d (col %d, row %d) is %s; areas are painted on floor", where, t, t%l.Cols, t/l.Cols, tileWord(l.Tiles[t]))
			}
			if other := owner[t]; other != 0 {
				if other == i+1 {
					return bad("%s: tile %d is listed twice", where, t)
				}
				return bad("%s: tile %d is already in area %s", where, t, l.Areas[other-1].ID)
			}
			owner[t] = i + 1
		}
	}
	return nil
}

// footprintTiles lists the tile indices a footprint covers; it must fit.
func (l *Layout) footprintTiles(col, row, w, h int) []int {
	var out []int
	for r := row; r < row+h; r++ {
		for c := col; c < col+w; c++ {
			if c >= 0 && r >= 0 && c < l.Cols && r < l.Rows {
				out = append(out, r*l.Cols+c)
			}
		}
	}
	return out
}

// Chair returns the chair with the given uid: seats are chairs.
func (l *Layout) Chair(uid string) (Item, bool) {
	for _, it := range l.Furniture {
		if it.UID == uid && it.Type == "chair" {
			return it, true
		}
	}
	return Item{}, false
}

func tileWord(t int) string {
	switch t {
	case Void:
		return "void"
	case Wall:
		return "a wall"
	}
	return "floor"
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.Type
	}
	return strings.Join(names, ", ")
}

// clip shortens a value quoted back in an error.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	cut := 60
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
