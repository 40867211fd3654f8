package design

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// pictureItem is one item of the picture: its attribute values as text.
type pictureItem struct {
	typ   string
	attrs map[string]string
}

// pictureItems returns the sample items, or, without samples, one item per
// entity whose attributes are its key templates.
func (s Service) pictureItems() []pictureItem {
	var out []pictureItem
	if len(s.Samples) > 0 {
		for _, it := range s.Samples {
			item, err := it.MarshalItem()
			if err != nil {
				continue
			}
			m := map[string]string{}
			for k, v := range item {
				switch v := v.(type) {
				case *types.AttributeValueMemberS:
					m[k] = v.Value
				case *types.AttributeValueMemberN:
					m[k] = v.Value
				}
			}
			out = append(out, pictureItem{typ: it.EntitySchema().Type, attrs: m})
		}
		return out
	}
	for _, e := range s.Entities {
		m := map[string]string{}
		for _, a := range e.Schema.Attrs {
			m[a] = "{" + a + "}"
		}
		for _, k := range e.Schema.Keys {
			m[k.Attr] = k.Template
		}
		m[s.Table.TypeAttr()] = e.Schema.Type
		out = append(out, pictureItem{typ: e.Schema.Type, attrs: m})
	}
	return out
}

var palette = []string{"#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#ffedd5", "#cffafe", "#e5e7eb"}

// SVG draws the table: for the table and for each GSI, one row per
// partition (item collection) with its items in sort-key order, each item
// labelled with its sort key and Type and coloured by Type, so that each
// index reads as a view of the same items. With Samples the picture shows
// those items; without, one item per entity with its key templates. A
// service without a table is an error.
func SVG(s Service) ([]byte, error) {
	if s.Table == nil {
		return nil, fmt.Errorf("design: %s has no table", s.Name)
	}
	items := s.pictureItems()
	colour := map[string]string{}
	for i, e := range s.Entities {
		colour[e.Schema.Type] = palette[i%len(palette)]
	}
	const (
		left, pkW, boxW, rowH, gap, titleH = 16, 280, 230, 46, 8, 34
	)
	type row struct {
		pk    string
		items []pictureItem
		sks   []string
	}
	type section struct {
		title string
		rows  []row
	}
	var secs []section
	for _, ix := range s.Indexes() {
		title := fmt.Sprintf("Table %s — partition %s, sort %s", s.Table.Name(), ix.PK, ix.SK)
		if ix.Name != "Primary" {
			title = fmt.Sprintf("GSI %s — partition %s, sort %s (a view of the same items, projection %s)", ix.Name, ix.PK, ix.SK, ix.Projection)
		}
		byPK := map[string]*row{}
		var order []string
		for _, it := range items {
			pk, ok := it.attrs[ix.PK]
			if !ok {
				continue
			}
			sk := ""
			if ix.SK != "" {
				if sk, ok = it.attrs[ix.SK]; !ok {
					continue
				}
			}
			r := byPK[pk]
			if r == nil {
				r = &row{pk: pk}
				byPK[pk] = r
				order = append(order, pk)
			}
			r.items = append(r.items, it)
			r.sks = append(r.sks, sk)
		}
		sec := section{title: title}
		for _, pk := range order {
			r := *byPK[pk]
			idx := make([]int, len(r.items))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(r.sks[a], r.sks[b]) })
			sorted := row{pk: r.pk}
			for _, i := range idx {
				sorted.items = append(sorted.items, r.items[i])
				sorted.sks = append(sorted.sks, r.sks[i])
			}
			sec.rows = append(sec.rows, sorted)
		}
		secs = append(secs, sec)
	}
	maxItems := 1
	height := 20
	for _, sec := range secs {
		height += titleH + len(sec.rows)*(rowH+gap) + 12
		for _, r := range sec.rows {
			maxItems = max(maxItems, len(r.items))
		}
	}
	width := left*2 + pkW + maxItems*(boxW+gap)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	esc := html.EscapeString
	w(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	w(`<title>%s</title>`+"\n", esc(s.Title))
	w(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	y := 20
	for _, sec := range secs {
		w(`<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", left, y+16, esc(sec.title))
		y += titleH
		for _, r := range sec.rows {
			w(`<g class="partition">` + "\n")
			w(`<rect x="%d" y="%d" width="%d" height="%d" fill="#f3f4f6" stroke="#6b7280"/>`+"\n", left, y, pkW, rowH)
			w(`<text x="%d" y="%d" font-family="DejaVu Sans Mono, monospace">%s</text>`+"\n", left+8, y+27, esc(clip(r.pk, 36)))
			for i, it := range r.items {
				x := left + pkW + gap + i*(boxW+gap)
				c := colour[it.typ]
				if c == "" {
					c = palette[len(palette)-1]
				}
				w(`<rect x="%d" y="%d" width="%d" height="%d" rx="4" fill="%s" stroke="#374151"/>`+"\n", x, y, boxW, rowH, c)
				w(`<text x="%d" y="%d" font-family="DejaVu Sans Mono, monospace">%s</text>`+"\n", x+8, y+19, esc(clip(r.sks[i], 30)))
				w(`<text x="%d" y="%d" fill="#374151">%s</text>`+"\n", x+8, y+37, esc(it.typ))
			}
			w("</g>\n")
			y += rowH + gap
		}
		y += 12
	}
	w("</svg>\n")
	return []byte(b.String()), nil
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
