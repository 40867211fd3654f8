package sample

import (
	"errors"
	"time"
)

// Shade is the colour of an Order: an enum whose type, constants, values
// and Valid method keygen generates.
//
//keygen:enum Shade RED GREEN DARK_BLUE ShadeNone=NONE

//keygen:enum Size S M L

// Order exercises the rules: an enum in its keys, numeric ranges,
// nonempty, a prefix and a Validate method.
//
//keygen:entity ORDER
//keygen:key PK=ORDER#{ID} SK=SHADE#{Shade}
//keygen:gsi GSI1 GSI1PK=SHADE#{Shade} GSI1SK={CreatedAt}
type Order struct {
	ID        string    `ddb:"id,prefix=ord-"`
	Shade     Shade     `ddb:"shade"`
	Alt       *Shade    `ddb:"alt"`
	Size      Size      `ddb:"size,omitempty"`
	Qty       int       `ddb:"qty,min=1,max=99"`
	Ratio     float64   `ddb:"ratio,min=0,max=1.5,omitempty"`
	Code      string    `ddb:"code,nonempty"`
	Tags      []string  `ddb:"tags,nonempty"`
	OptQty    *uint16   `ddb:"optQty,max=500"`
	CreatedAt time.Time `ddb:"createdAt,created"`
	Shipped   time.Time `ddb:"shipped,omitempty"`
}

// ErrShippedEarly is returned by Order.Validate.
var ErrShippedEarly = errors.New("sample: shipped before created")

// Validate checks what no single attribute can: an order ships after it
// is created. MarshalItem calls it.
func (o *Order) Validate() error {
	if !o.Shipped.IsZero() && o.Shipped.Before(o.CreatedAt) {
		return ErrShippedEarly
	}
	return nil
}
