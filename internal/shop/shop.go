// Package shop is the small shop a newcomer models first (customers,
// accounts, orders and their lines, with enums, rules and unique fields),
// used by the tests and benchmarks of unique fields, rules on Remove and
// the newcomer's error messages. Its table has the primary key PK/SK and
// the indexes that keygen lists in [GSIs]:
//
//	Customer   CUSTOMER#<id>          PROFILE         email unique in the table; phone unique
//	                                                   when set; handle unique within the account
//	  GSI1     EMAIL#<email>          CUSTOMER        the customer of an email (an index key
//	                                                   built from a unique field)
//	Account    ACCOUNT#<id>           META            versioned; slug unique
//	Order      ORDER#<id>             META            status enum, total >= 0
//	OrderLine  ORDER#<orderId>        LINE#<lineNo>   sku nonempty, state enum, ref prefix
//	  GSI2     REGION#<region>#STATE#<state>  LINE#<orderId>#<lineNo>   lines by region and state
package shop

//go:generate go run github.com/tablekit/tablekit/keys/keygen

import "time"

// Customer is a shop's customer: Email is unique in the whole table, Phone
// is unique when set, and Handle is unique within the customer's account.
//
//keygen:entity Customer
//keygen:key PK=CUSTOMER#{ID} SK=PROFILE
//keygen:gsi GSI1 GSI1PK=EMAIL#{Email} GSI1SK=CUSTOMER
type Customer struct {
	ID        string    `ddb:"id,nonempty"`
	AccountID string    `ddb:"accountId,omitempty"`
	Email     string    `ddb:"email,unique"`
	Phone     *string   `ddb:"phone,unique"`
	Handle    string    `ddb:"handle,omitempty,unique=AccountID"`
	Name      string    `ddb:"name,omitempty"`
	Visits    int       `ddb:"visits,omitempty"`
	CreatedAt time.Time `ddb:"createdAt,created"`
	UpdatedAt time.Time `ddb:"updatedAt,updated"`
}

// Account is a versioned entity with a unique slug.
//
//keygen:entity Account
//keygen:key PK=ACCOUNT#{ID} SK=META
type Account struct {
	ID      string `ddb:"id,nonempty"`
	Slug    string `ddb:"slug,unique"`
	Name    string `ddb:"name,omitempty"`
	Version int64  `ddb:"version,version"`
}

// OrderState is the status of an order and of its lines.
//
//keygen:enum OrderState NEW PAID SHIPPED CANCELLED

// Order is an order of a customer.
//
//keygen:entity Order
//keygen:key PK=ORDER#{ID} SK=META
type Order struct {
	ID         string     `ddb:"id,nonempty"`
	CustomerID string     `ddb:"customerId,nonempty"`
	Status     OrderState `ddb:"status"`
	Total      int64      `ddb:"total,min=0"`
	Note       string     `ddb:"note,omitempty"`
	Gift       string     `ddb:"gift,omitempty"`
}

// OrderLine is one line of an order: SKU is required, State is a required
// enum, Ref must start with "ref-", and the lines are indexed by region
// and state (GSI2, built from both).
//
//keygen:entity OrderLine
//keygen:key PK=ORDER#{OrderID} SK=LINE#{LineNo:4}
//keygen:gsi GSI2 GSI2PK=REGION#{Region}#STATE#{State} GSI2SK=LINE#{OrderID}#{LineNo:4}
type OrderLine struct {
	OrderID string     `ddb:"orderId"`
	LineNo  int        `ddb:"lineNo"`
	SKU     string     `ddb:"sku,nonempty"`
	State   OrderState `ddb:"state"`
	Region  string     `ddb:"region"`
	Ref     string     `ddb:"ref,prefix=ref-"`
	Qty     int        `ddb:"qty,omitempty,min=1"`
	Memo    string     `ddb:"memo,omitempty"`
}

// Article is codex.Post's shape with a unique slug: the entity of
// BenchmarkUnique, compared with BenchmarkEntity's codex.Post.
//
//keygen:entity Article
//keygen:key PK=CATEGORY#{CategoryID} SK=ARTICLE#{ID}
type Article struct {
	ID         string    `ddb:"id"`
	CategoryID string    `ddb:"categoryId"`
	AuthorID   string    `ddb:"authorId,omitempty"`
	Title      string    `ddb:"title"`
	Contents   string    `ddb:"contents,omitempty"`
	Slug       string    `ddb:"slug,unique"`
	CreatedAt  time.Time `ddb:"CreatedAt,created,isosec"`
	UpdatedAt  time.Time `ddb:"UpdatedAt,updated,isosec"`
}
