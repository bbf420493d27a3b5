package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Sizes the edits cannot run on are refused before anything is seeded,
// naming the flag to change.
func TestScaleSizesTheEditsCanRunOn(t *testing.T) {
	t.Parallel()
	base := scaleOptions{users: 1000, tripsPerUser: 100, smallUsers: 10, conns: 16}
	for _, tc := range []struct {
		name   string
		change func(*scaleOptions)
		refuse string // "" when accepted
	}{
		{name: "the make target's sizes", change: func(*scaleOptions) {}},
		{name: "one small user, as the quick run", change: func(o *scaleOptions) { o.smallUsers = 1 }},
		{name: "two trips for each sharing connection", change: func(o *scaleOptions) { o.smallUsers, o.tripsPerUser = 2, 16 }},
		{name: "fewer", change: func(o *scaleOptions) { o.smallUsers, o.tripsPerUser = 2, 5 },
			refuse: "-trips 5: with -small-users 2 and -conns 16, 8 connections share each user"},
		{name: "no users", change: func(o *scaleOptions) { o.users = 0 }, refuse: "-users 0"},
		{name: "no connections", change: func(o *scaleOptions) { o.conns = 0 }, refuse: "-conns 0"},
	} {
		o := base
		tc.change(&o)
		err := o.checkSizes()
		if tc.refuse == "" {
			require.NoError(t, err, tc.name)
			continue
		}
		require.ErrorContains(t, err, tc.refuse, tc.name)
	}
}
