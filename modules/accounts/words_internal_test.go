package accounts

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWordsDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		give    Words
		want    Words
		wantErr string
	}{
		{name: "a title alone", give: Words{Title: " Notes "}, want: Words{Title: "Notes", ExportName: "notes-export", Locale: "en"}},
		{name: "a title of several words", give: Words{Title: "My Gear — List 2"}, want: Words{Title: "My Gear — List 2", ExportName: "my-gear-list-2-export", Locale: "en"}},
		{name: "the product's own", give: Words{Title: "Cairn", ExportName: "bike-trip-planner-export", Locale: "fr"},
			want: Words{Title: "Cairn", ExportName: "bike-trip-planner-export", Locale: "fr"}},
		{name: "no title", give: Words{}, wantErr: "the product's title is required"},
		{name: "an unwritten locale", give: Words{Title: "Notes", Locale: "de"}, wantErr: "Words.Locale must be one of fr, en"},
		{name: "a bad notification type", give: Words{Title: "Notes", Notifications: NotificationsOf(3)}, wantErr: "must be a struct of bool fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.give.complete()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestNotificationsOf(t *testing.T) {
	t.Parallel()
	type prefs struct {
		Weekly   bool `json:"weekly"`
		Mentions bool `json:"mentions,omitempty"`
	}
	n := NotificationsOf(prefs{Mentions: true})
	require.NoError(t, n.err)
	require.Equal(t, []string{"mentions", "weekly"}, n.names, "sorted")
	require.Equal(t, map[string]bool{"mentions": true, "weekly": false}, n.on, "the defaults given")
	p, err := answer[prefs](map[string]bool{"weekly": true, "mentions": false}, nil)
	require.NoError(t, err)
	require.Equal(t, prefs{Weekly: true}, p)

	for name, bad := range map[string]Notifications{
		"not a struct": NotificationsOf("x"),
		"a field not bool": NotificationsOf(struct {
			N int `json:"n"`
		}{}),
		"no JSON name": NotificationsOf(struct{ On bool }{}),
		"a name with /": NotificationsOf(struct {
			On bool `json:"a/b"`
		}{}),
		"no category":       NotificationsOf(struct{}{}),
		"an unexported one": NotificationsOf(struct{ on bool }{}),
	} {
		require.Error(t, bad.err, name)
		require.Nil(t, bad.declare, "%s declares nothing", name)
	}
}
