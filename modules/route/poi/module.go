package poi

import "go.uber.org/fx"

// Module provides the POI store and, as the Provider, the store itself: the
// local table is the default source of accommodation candidates. An
// application that wants Overpass instead decorates Provider with an
// *Overpass.
var Module = fx.Module("poi", fx.Provide(NewStore, func(s *Store) Provider { return s }))
