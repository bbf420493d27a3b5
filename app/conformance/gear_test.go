package conformance_test

import (
	"context"
	"embed"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// This file is a second small product, a bikepacking gear list: a user's
// lists and the items on them, a child resource addressed through its
// list (/lists/{id}/items/{itemId}), and a tool grouping a read with a
// destructive write under another scope. Its defects are the mistakes a
// product team makes that a kit proving only refusals let through; each
// switches on one of them.

// defects are mistakes of the gear module; the zero value is it written right.
type defects struct {
	childByOwnID      bool // update_item reads and writes the item by {itemId} alone, whatever its list
	listsEveryone     bool // the listing forgets the caller: everyone's lists
	createsTwice      bool // create_list inserts its row twice
	mergeWrites       bool // create_list's Merge inserts the row, before the key or the validation
	getFails          bool // get_list always fails
	deleteUnconfirmed bool // delete_item neither asks nor says why not
	unpackUnderRead   bool // the destructive unpack is declared under the read scope
	noLock            bool // update_item's lock removed from the declaration (its Locked fixture stays)
	validatesInput    bool // update_item's Merge returns the input alone, so validation never sees what is stored
}

const (
	gearRead  registry.Scope = "gear:read"
	gearWrite registry.Scope = "gear:write"
)

//go:embed testdata/gear/*.sql
var gearFiles embed.FS

var gearMigrations = migrations.Dir("gear", gearFiles, "testdata/gear")

// gearProduct is the gear list service with the given defects.
func gearProduct(d defects) app.Product {
	return app.Product{
		Name: "gear", Title: "Gear lists", Version: "0.0.1",
		Modules: []app.Module{
			{
				Name: "gear",
				Options: fx.Provide(
					func(db *bun.DB) *gear { return &gear{db: db, d: d} },
					fx.Annotate(func(g *gear) registry.Declarer { return g.declare }, fx.ResultTags(`group:"declarations"`))),
				Migrations: []migrations.Source{gearMigrations},
			},
			peopleModule,
		},
	}
}

// gearList and gearItem are the stored records.
type gearList struct {
	bun.BaseModel `bun:"table:gear_lists"`

	ID      string `bun:"id,pk"`
	UserID  string `bun:"user_id"`
	Title   string `bun:"title"`
	Version int64  `bun:"version"`
}

func (l *gearList) RecordVersion() int64 { return l.Version }

type gearItem struct {
	bun.BaseModel `bun:"table:gear_items"`

	ID      string `bun:"id,pk"`
	ListID  string `bun:"list_id"`
	Name    string `bun:"name"`
	Grams   int64  `bun:"grams"`
	Note    string `bun:"note"`
	Packed  bool   `bun:"packed"`
	Version int64  `bun:"version"`
}

func (i *gearItem) RecordVersion() int64 { return i.Version }

// The published shapes.
type (
	// GearListsInput pages the caller's lists.
	GearListsInput struct{ registry.PageInput }
	// GearLists is a page of the caller's lists.
	GearLists struct {
		Lists []GearList `json:"lists" doc:"The caller's lists."`
		registry.PageInfo
	}
	// GearListInput is a new list.
	GearListInput struct {
		Title string `json:"title" maxLength:"100" doc:"What the list is for."`
	}
	// GearList is a list as published.
	GearList struct {
		ID      string `json:"id" doc:"The list's id."`
		Title   string `json:"title" doc:"Its title."`
		Version int64  `json:"version" doc:"Its version."`
	}
	// GearItemInput is a new item.
	GearItemInput struct {
		Name  string `json:"name" maxLength:"100" doc:"What it is."`
		Grams int64  `json:"grams" minimum:"0" maximum:"100000" doc:"What it weighs, in grams."`
	}
	// GearItemPatch changes an item.
	GearItemPatch struct {
		Name   *string `json:"name,omitempty" maxLength:"100" doc:"A new name."`
		Grams  *int64  `json:"grams,omitempty" minimum:"0" maximum:"100000" doc:"A new weight, in grams."`
		Note   *string `json:"note,omitempty" maxLength:"200" doc:"A note; it must say more than the name."`
		Packed *bool   `json:"packed,omitempty" doc:"Packed: a packed item can no longer be changed."`
	}
	// GearItem is an item as published.
	GearItem struct {
		ID      string `json:"id" doc:"The item's id."`
		ListID  string `json:"listId" doc:"The list it is on."`
		Name    string `json:"name" doc:"What it is."`
		Grams   int64  `json:"grams" doc:"Its weight."`
		Note    string `json:"note" doc:"Its note."`
		Packed  bool   `json:"packed" doc:"Whether it is packed."`
		Version int64  `json:"version" doc:"Its version."`
	}
	// GearWeight is a list's total.
	GearWeight struct {
		Grams int64 `json:"grams" doc:"What the list's items weigh together."`
	}
	// GearGone says an item is deleted.
	GearGone struct {
		ID string `json:"id" doc:"The deleted item's id."`
	}
)

func (l GearList) CreatedID() string        { return l.ID }
func (l GearList) ResourceVersion() int64   { return l.Version }
func (l GearList) ResourceLocation() string { return "/lists/" + l.ID }
func (i GearItem) CreatedID() string        { return i.ID }
func (i GearItem) ResourceVersion() int64   { return i.Version }
func (i GearItem) ResourceLocation() string { return "/lists/" + i.ListID + "/items/" + i.ID }

func listOut(l *gearList) GearList { return GearList{ID: l.ID, Title: l.Title, Version: l.Version} }
func itemOut(i *gearItem) GearItem {
	return GearItem{ID: i.ID, ListID: i.ListID, Name: i.Name, Grams: i.Grams, Note: i.Note, Packed: i.Packed, Version: i.Version}
}

// gear is the module: its store and its declarations.
type gear struct {
	db *bun.DB
	d  defects
}

func (g *gear) conn(ctx context.Context) bun.IDB { return storage.Conn(ctx, g.db) }

func (g *gear) ownsList(ctx context.Context, userID, id string) (bool, error) {
	return g.conn(ctx).NewSelect().Model((*gearList)(nil)).Where("id = ? AND user_id = ?", id, userID).Exists(ctx)
}

// itemOnList reports whether item is on list.
func (g *gear) itemOnList(ctx context.Context, list, item string) (bool, error) {
	return g.conn(ctx).NewSelect().Model((*gearItem)(nil)).Where("id = ? AND list_id = ?", item, list).Exists(ctx)
}

// item loads the item of the call: within its authorized list, unless the
// module forgets to.
func (g *gear) item(ctx context.Context, c *registry.Call) (*gearItem, error) {
	it := new(gearItem)
	q := g.conn(ctx).NewSelect().Model(it).Where("id = ?", c.Var("itemId"))
	if !g.d.childByOwnID {
		q = q.Where("list_id = ?", c.Var("id"))
	}
	if err := q.Scan(ctx); err != nil {
		if storage.NoRows(err) {
			return nil, registry.Fail(registry.KindNotFound, "no such item on this list")
		}
		return nil, err
	}
	return it, nil
}

func (g *gear) declare(reg *registry.Registry) {
	reg.DeclareScope(gearRead, registry.ReadScope, "Read your gear lists.")
	reg.DeclareScope(gearWrite, registry.WriteScope, "Make and change your gear lists.")
	owner := registry.ByURIVariable("id", g.ownsList)

	registry.Add(reg, registry.Op[GearListsInput, GearLists]{
		ID: "gear.lists", Summary: "GearList your gear lists",
		HTTP: registry.Get("/lists"), Tool: registry.Tool("list_gear", "GearList the caller's gear lists, 20 a page."),
		Scope: gearRead, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Paging: registry.Paged(20, 100),
		Handle: func(ctx context.Context, c *registry.Call, in *GearListsInput) (GearLists, error) {
			var ls []gearList
			q := g.conn(ctx).NewSelect().Model(&ls).Order("id").Offset(int64(in.Offset())).Limit(int64(in.Limit()))
			if !g.d.listsEveryone {
				q = q.Where("user_id = ?", c.UserID())
			}
			total, err := q.ScanAndCount(ctx)
			out := GearLists{Lists: []GearList{}, PageInfo: in.Info(int(total))}
			for i := range ls {
				out.Lists = append(out.Lists, listOut(&ls[i]))
			}
			return out, err
		},
	})

	merge := func(ctx context.Context, c *registry.Call, in *GearListInput) (registry.Record, error) {
		l := &gearList{ID: uuid.NewString(), UserID: c.UserID(), Title: in.Title, Version: 1}
		if g.d.mergeWrites {
			_, err := g.conn(ctx).NewInsert().Model(l).Exec(ctx)
			return l, err
		}
		return l, nil
	}
	registry.Add(reg, registry.Op[GearListInput, GearList]{
		ID: "gear.create_list", Summary: "Start a gear list",
		HTTP: registry.Post("/lists", http.StatusCreated), Tool: registry.Tool("create_gear_list", "Start a gear list."),
		Scope: gearWrite, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Merge: merge, Validate: registry.ValidateWith(func(r registry.Record) []registry.Violation {
			if strings.TrimSpace(r.(*gearList).Title) == "" {
				return []registry.Violation{{Field: "title", Reason: "must not be blank"}}
			}
			return nil
		}),
		Lock: registry.NoLock, Precondition: registry.NoPrecondition, Confirm: registry.NoConfirm,
		Idempotency: registry.CreationReplayedBy(func(ctx context.Context, _ *registry.Call, id string) (any, error) {
			l := new(gearList)
			if err := g.conn(ctx).NewSelect().Model(l).Where("id = ?", id).Scan(ctx); err != nil {
				return nil, err
			}
			return listOut(l), nil
		}),
		Record: (*gearList)(nil),
		Handle: func(ctx context.Context, c *registry.Call, _ *GearListInput) (GearList, error) {
			l := c.Merged.(*gearList)
			if g.d.mergeWrites {
				return listOut(l), nil // written already
			}
			if _, err := g.conn(ctx).NewInsert().Model(l).Exec(ctx); err != nil {
				return GearList{}, err
			}
			if g.d.createsTwice {
				again := *l
				again.ID = uuid.NewString()
				if _, err := g.conn(ctx).NewInsert().Model(&again).Exec(ctx); err != nil {
					return GearList{}, err
				}
			}
			return listOut(l), nil
		},
	})

	registry.Add(reg, registry.Op[NoInput, GearList]{
		ID: "gear.get_list", Summary: "Read a gear list",
		HTTP: registry.Get("/lists/{id}"), Tool: registry.Tool("get_gear_list", "Read a gear list."),
		Scope: gearRead, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (GearList, error) {
			if g.d.getFails {
				return GearList{}, errors.New("the list's query names a column that does not exist")
			}
			l := new(gearList)
			if err := g.conn(ctx).NewSelect().Model(l).Where("id = ?", c.Var("id")).Scan(ctx); err != nil {
				return GearList{}, err
			}
			return listOut(l), nil
		},
	})

	registry.Add(reg, registry.Op[GearItemInput, GearItem]{
		ID: "gear.add_item", Summary: "Put an item on a list",
		HTTP: registry.Post("/lists/{id}/items", http.StatusCreated), Tool: registry.Tool("add_gear_item", "Put an item on a gear list."),
		Scope: gearWrite, Owner: owner, RateLimit: registry.NoRateLimit,
		Merge: func(_ context.Context, c *registry.Call, in *GearItemInput) (registry.Record, error) {
			return &gearItem{ID: uuid.NewString(), ListID: c.Var("id"), Name: in.Name, Grams: in.Grams, Version: 1}, nil
		},
		Validate: registry.ValidateWith(itemRules), Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm,
		Idempotency: registry.CreationReplayedBy(func(ctx context.Context, _ *registry.Call, id string) (any, error) {
			it := new(gearItem)
			if err := g.conn(ctx).NewSelect().Model(it).Where("id = ?", id).Scan(ctx); err != nil {
				return nil, err
			}
			return itemOut(it), nil
		}),
		Record: (*gearItem)(nil),
		Handle: func(ctx context.Context, c *registry.Call, _ *GearItemInput) (GearItem, error) {
			it := c.Merged.(*gearItem)
			_, err := g.conn(ctx).NewInsert().Model(it).Exec(ctx)
			return itemOut(it), err
		},
	})

	lock := registry.LockWhen("a packed item can no longer be changed", func(prev registry.Record, _ time.Time) bool { return prev.(*gearItem).Packed })
	if g.d.noLock {
		lock = registry.NoLock
	}
	registry.Add(reg, registry.Op[GearItemPatch, GearItem]{
		ID: "gear.update_item", Summary: "Change an item",
		HTTP: registry.Patch("/lists/{id}/items/{itemId}", http.StatusOK), Tool: registry.Tool("update_gear_item", "Change an item of a gear list. Needs its version."),
		Scope: gearWrite, Owner: owner.Within("itemId"), RateLimit: registry.NoRateLimit,
		Load: func(ctx context.Context, c *registry.Call) (registry.Record, error) { return g.item(ctx, c) },
		Merge: func(_ context.Context, c *registry.Call, in *GearItemPatch) (registry.Record, error) {
			base := *c.Previous.(*gearItem)
			if g.d.validatesInput {
				base = gearItem{ID: base.ID, ListID: base.ListID, Version: base.Version} // the input alone
			}
			return patched(base, in), nil
		},
		Validate: registry.ValidateWith(itemRules), Lock: lock, Precondition: registry.RequireVersion,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{}, Record: (*gearItem)(nil),
		Handle: func(ctx context.Context, c *registry.Call, in *GearItemPatch) (GearItem, error) {
			prev := c.Previous.(*gearItem)
			it := patched(*prev, in) // what is stored, changed by what was sent
			it.Version = prev.Version + 1
			res, err := g.conn(ctx).NewUpdate().Model(it).WherePK().Where("version = ?", prev.Version).Exec(ctx)
			if err != nil {
				return GearItem{}, err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return GearItem{}, registry.Fail(registry.KindPreconditionFailed, "the item changed meanwhile")
			}
			return itemOut(it), nil
		},
	})

	confirm := registry.ConfirmWith(func(context.Context, *registry.Call) (registry.Impact, error) {
		return registry.Impact{Summary: "takes this item off the list", Loses: []string{"its name, weight and note"}}, nil
	})
	if g.d.deleteUnconfirmed {
		confirm = registry.NoConfirm
	}
	registry.Add(reg, registry.Op[NoInput, GearGone]{
		ID: "gear.delete_item", Summary: "Take an item off a list",
		HTTP: registry.Delete("/lists/{id}/items/{itemId}"), Tool: registry.Tool("delete_gear_item", "Take an item off a gear list; asks first."),
		// Nothing is read before the confirmation asks: the item is judged
		// by its list in the owner guard, so an item of another list is
		// not found rather than described.
		Scope: gearWrite, Owner: owner.Child("itemId", g.itemOnList), RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: confirm, Idempotency: registry.NotACreation, Hints: registry.Hints{Destructive: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (GearGone, error) {
			it, err := g.item(ctx, c)
			if err != nil {
				return GearGone{}, err
			}
			_, err = g.conn(ctx).NewDelete().Model(it).WherePK().Exec(ctx)
			return GearGone{ID: it.ID}, err
		},
	})

	// One tool, two actions: weighing reads, unpacking changes every item
	// under the write scope.
	registry.Add(reg, registry.Op[NoInput, GearWeight]{
		ID: "gear.weigh", Summary: "Weigh a list",
		HTTP: registry.Get("/lists/{id}/weight"), Tool: registry.ToolAction("pack_list", "Weigh a list (weigh) or unpack all of it (unpack).", "weigh"),
		Scope: gearRead, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (GearWeight, error) {
			var w GearWeight
			err := g.conn(ctx).NewSelect().Model((*gearItem)(nil)).ColumnExpr("COALESCE(SUM(grams), 0)").
				Where("list_id = ?", c.Var("id")).Scan(ctx, &w.Grams)
			return w, err
		},
	})
	unpackScope := gearWrite
	if g.d.unpackUnderRead {
		unpackScope = gearRead
	}
	registry.Add(reg, registry.Op[NoInput, GearWeight]{
		ID: "gear.unpack", Summary: "Unpack every item of a list",
		HTTP: registry.Post("/lists/{id}/unpack", http.StatusOK), Tool: registry.ToolAction("pack_list", "Weigh a list (weigh) or unpack all of it (unpack).", "unpack"),
		Scope: unpackScope, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirmBecause("packing again is one call per item; nothing but the packed mark changes"), Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (GearWeight, error) {
			_, err := g.conn(ctx).NewUpdate().Model((*gearItem)(nil)).Set("packed = ?", false).Set("version = version + 1").
				Where("list_id = ? AND packed", c.Var("id")).Exec(ctx)
			return GearWeight{}, err
		},
	})
}

// patched is item with the patch applied.
func patched(it gearItem, in *GearItemPatch) *gearItem {
	if in.Name != nil {
		it.Name = *in.Name
	}
	if in.Grams != nil {
		it.Grams = *in.Grams
	}
	if in.Note != nil {
		it.Note = *in.Note
	}
	if in.Packed != nil {
		it.Packed = *in.Packed
	}
	return &it
}

// itemRules judge an item as it would be stored.
func itemRules(r registry.Record) []registry.Violation {
	it := r.(*gearItem)
	var vs []registry.Violation
	if strings.TrimSpace(it.Name) == "" {
		vs = append(vs, registry.Violation{Field: "name", Reason: "must not be blank"})
	}
	if it.Note != "" && strings.EqualFold(it.Note, it.Name) {
		vs = append(vs, registry.Violation{Field: "note", Reason: "must say more than the name"})
	}
	return vs
}

// The gear module's fixtures, as its team writes them.

func newList(t testing.TB, a *apptest.App, u conformance.User) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/lists", u.Token, map[string]any{"title": "Alps " + uuid.NewString()[:8]},
		operations.HeaderIdempotencyKey, "key-"+uuid.NewString())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	return res.JSON(t)["id"].(string)
}

func newItem(t testing.TB, a *apptest.App, u conformance.User, list string) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/lists/"+list+"/items", u.Token, map[string]any{"name": "Stove", "grams": 300},
		operations.HeaderIdempotencyKey, "key-"+uuid.NewString())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	return res.JSON(t)["id"].(string)
}

// onList names a new list of u's with one item on it.
func onList(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
	list := newList(t, a, u)
	return apptest.Request{Vars: map[string]string{"id": list, "itemId": newItem(t, a, u, list)}}
}

func storedItem(t testing.TB, a *apptest.App, id string) (gearItem, bool) {
	t.Helper()
	var it gearItem
	err := a.DB.NewSelect().Model(&it).Where("id = ?", id).Scan(context.Background())
	if storage.NoRows(err) {
		return it, false
	}
	require.NoError(t, err)
	return it, true
}

var gearFixtures = conformance.Fixtures{
	"gear.lists": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		newList(t, a, u) // something to list
		return apptest.Request{}
	}},
	"gear.create_list": {
		Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"title": "Pyrenees " + uuid.NewString()[:8]}}
		},
		Conflicting: func(r apptest.Request) apptest.Request { r.Args["title"] = "Jura"; return r },
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
			r.Args["title"] = "   "
			return r
		},
	},
	"gear.get_list": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": newList(t, a, u)}}
	}},
	"gear.add_item": {
		Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": newList(t, a, u)}, Args: map[string]any{"name": "Tent", "grams": 1200}}
		},
		Conflicting: func(r apptest.Request) apptest.Request { r.Args["grams"] = 900; return r },
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
			r.Args["name"] = "  "
			return r
		},
	},
	"gear.update_item": {
		// The invalid call breaks a rule on what it sends alone: it is the
		// merge scenario, not this fixture, that proves the stored record
		// is judged with the change.
		Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			r := onList(t, a, u)
			r.Args, r.Version = map[string]any{"note": "the spare one"}, ptr(int64(1))
			return r
		},
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"name": "  "}
			return r
		},
		Locked: func(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) apptest.Request {
			res := a.Do(t, http.MethodPatch, "/lists/"+r.Vars["id"]+"/items/"+r.Vars["itemId"], u.Token,
				map[string]any{"packed": true}, "If-Match", strconv.Quote("1"))
			require.Equal(t, http.StatusOK, res.Status, string(res.Body))
			r.Version = ptr(int64(2))
			return r
		},
		Written: func(t testing.TB, a *apptest.App, _ conformance.User, r apptest.Request) bool {
			it, ok := storedItem(t, a, r.Vars["itemId"])
			return !ok || it.Version != *r.Version
		},
	},
	"gear.delete_item": {
		Valid: onList,
		Written: func(t testing.TB, a *apptest.App, _ conformance.User, r apptest.Request) bool {
			_, ok := storedItem(t, a, r.Vars["itemId"])
			return !ok
		},
	},
	"gear.weigh": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		r := onList(t, a, u)
		delete(r.Vars, "itemId")
		return r
	}},
	"gear.unpack": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		r := onList(t, a, u)
		delete(r.Vars, "itemId")
		return r
	}},
}

func ptr[T any](v T) *T { return &v }

// configFor is the default configuration, for building a registry.
func configFor(t *testing.T) config.Config {
	t.Helper()
	cfg, err := config.Load("", nil)
	require.NoError(t, err)
	return cfg
}

// TestTheGearModuleConforms: the module written right passes the whole
// kit, the write census included, on SQLite and on PostgreSQL.
func TestTheGearModuleConforms(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres}}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			conformance.Exercise(t, apptest.New(t, gearProduct(defects{}), engine.opts...), gearFixtures)
		})
	}
}

// TestTheKitCatchesWhatTeamsGetWrong plants one defect at a time in the
// gear module and shows the scenario that passes on the module written
// right failing on the broken one, with words that say what is wrong.
func TestTheKitCatchesWhatTeamsGetWrong(t *testing.T) {
	t.Parallel()
	intact := apptest.New(t, gearProduct(defects{}))
	tests := []struct {
		name     string
		defects  defects
		postgres bool
		op, sc   string
		counted  bool   // the scenario runs under the write census
		symptom  string // what the failure says
	}{
		{"a child written by its own id alone", defects{childByOwnID: true}, false,
			"gear.update_item", guards.NameOwner, false, "gear.update_item, someone else's {itemId}: HTTP answered 200"},
		{"a listing of everyone's records", defects{listsEveryone: true}, false,
			"gear.lists", conformance.ScenarioCollection, false, "an id of another user's record"},
		{"a creation that writes twice", defects{createsTwice: true}, false,
			"gear.create_list", conformance.ScenarioValid, true, "a valid creation must write its record exactly once; it added 2 row(s) to gear_lists"},
		{"a write in Merge", defects{mergeWrites: true}, false,
			"gear.create_list", conformance.ScenarioValid, false, "gear.create_list: Merge wrote to the database (attempt to write a readonly database"},
		{"a Merge that writes, on PostgreSQL", defects{mergeWrites: true}, true,
			"gear.create_list", guards.NameValidate, false, "gear.create_list: Merge wrote to the database (ERROR: cannot execute INSERT in a read-only transaction"},
		{"a valid call that fails", defects{getFails: true}, false,
			"gear.get_list", conformance.ScenarioValid, false, "the Valid call must succeed, but it answered 500"},
		{"a valid call that fails, with its cause", defects{getFails: true}, false,
			"gear.get_list", conformance.ScenarioValid, false, "cause: operation failed op=gear.get_list face=http err=the list's query names a column that does not exist"},
		{"validation of the input alone", defects{validatesInput: true}, false,
			"gear.update_item", conformance.ScenarioMerge, false, "the Valid call does not send name, yet the merged record changes it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ref, broken := intact, (*apptest.App)(nil)
			if tt.postgres {
				ref = apptest.New(t, gearProduct(defects{}), apptest.Postgres)
				broken = apptest.New(t, gearProduct(tt.defects), apptest.Postgres)
			} else {
				broken = apptest.New(t, gearProduct(tt.defects))
			}
			require.Empty(t, scenarioFailures(t, ref, gearFixtures, tt.op, tt.sc, tt.counted), "the module written right passes")
			failures := scenarioFailures(t, broken, gearFixtures, tt.op, tt.sc, tt.counted)
			require.NotEmpty(t, failures, "the broken module is caught")
			require.Contains(t, strings.Join(failures, "\n"), tt.symptom)
		})
	}
}

// TestCheckCatchesPolicy: the defects a declaration shows are refused when
// the registry is checked, before anything serves them.
func TestCheckCatchesPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		defects defects
		symptom string
	}{
		{"a DELETE without confirmation or a motive", defects{deleteUnconfirmed: true},
			"gear.delete_item: a DELETE acts without confirmation: ask (registry.ConfirmWith, registry.ConfirmWhenLoses) or say why not (registry.NoConfirmBecause)"},
		{"a write under a read scope", defects{unpackUnderRead: true},
			"gear.unpack: it writes (POST) under the read scope gear:read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := app.Registry(gearProduct(tt.defects), configFor(t))
			require.ErrorContains(t, err, tt.symptom)
		})
	}
	_, err := app.Registry(gearProduct(defects{}), configFor(t))
	require.NoError(t, err, "the module written right is accepted")
}

// TestAnUnusedFixtureFails: a Locked fixture on an operation whose lock
// was removed from its declaration fails the kit instead of being
// skipped: the lock the team meant to have is gone.
func TestAnUnusedFixtureFails(t *testing.T) {
	t.Parallel()
	reg, err := app.Registry(gearProduct(defects{noLock: true}), configFor(t))
	require.NoError(t, err)
	require.Contains(t, conformance.FixtureProblems(reg, gearFixtures),
		"gear.update_item: its fixture gives Locked, but the operation declares no lock, so the kit cannot use it: declare registry.LockWhen, or remove the fixture field")
	reg, err = app.Registry(gearProduct(defects{}), configFor(t))
	require.NoError(t, err)
	require.Empty(t, conformance.FixtureProblems(reg, gearFixtures))
}

// TestAGroupedToolShowsItsWorstAction: the pack_list tool groups a read under
// gear:read with a destructive write under gear:write. It is listed with
// destructiveHint true and only to a token holding both scopes, which the
// kit's listing scenario proves on the wire.
func TestAGroupedToolShowsItsWorstAction(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, gearProduct(defects{}))
	require.Empty(t, scenarioFailures(t, a, gearFixtures, "gear.unpack", conformance.ScenarioListing, false))
	readOnly := a.MCP(t, a.Token(t, "reader@example.com", gearRead))
	list, err := readOnly.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range list.Tools {
		require.NotEqual(t, "pack_list", tool.Name, "a read-only token is not listed a tool one of whose actions writes")
	}
	both := a.MCP(t, a.Token(t, "packer@example.com"))
	list, err = both.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var found bool
	for _, tool := range list.Tools {
		if tool.Name == "pack_list" {
			found = true
			require.True(t, *tool.Annotations.DestructiveHint, "the tool warns of its destructive action")
			require.False(t, tool.Annotations.ReadOnlyHint, "a tool that may write is not read-only")
		}
	}
	require.True(t, found, "a token with both scopes is listed the tool")
}

// scenarioFailures runs one scenario (counted under the write census when
// asked) under a recorder and returns its failures.
func scenarioFailures(t *testing.T, a *apptest.App, fx conformance.Fixtures, id, sc string, countedRun bool) []string {
	t.Helper()
	op, ok := a.Server.Registry.Lookup(id)
	require.True(t, ok, id)
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if countedRun {
			conformance.RunCounted(r, a, fx, op, sc)
			return
		}
		conformance.Run(r, a, fx, op, sc)
	}()
	<-done
	return r.failures
}
