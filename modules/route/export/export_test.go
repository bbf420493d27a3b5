package export_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cairn.dev/cairn/modules/route/export"
)

func TestSymbol(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give []string
		want string
	}{
		{give: []string{"restaurant", "cafe", "bar", "fast_food"}, want: "Restaurant"},
		{give: []string{"supermarket", "convenience", "bakery", "butcher", "pastry", "deli", "greengrocer", "general", "farm", "marketplace"}, want: "Shopping Center"},
		{give: []string{"pharmacy"}, want: "Medical Facility"},
		{give: []string{"viewpoint"}, want: "Scenic Area"},
		{give: []string{"attraction"}, want: "Museum"},
		{give: []string{"drinking_water"}, want: "Drinking Water"},
		{give: []string{"camp_site"}, want: "Campground"},
		{give: []string{"hostel", "guest_house", "alpine_hut", "chalet"}, want: "Lodge"},
		{give: []string{"hotel", " Hotel "}, want: "Hotel"},
		{give: []string{"", "other", "motel", "toilets"}, want: "Flag, Blue"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			for _, category := range tt.give {
				assert.Equal(t, tt.want, export.Symbol(category), "%q", category)
			}
		})
	}
}

func TestCoursePointTypeOf(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give []string
		want export.CoursePointType
	}{
		{name: "food", give: []string{"restaurant", "cafe", "bar", "fast_food", "supermarket", "convenience", "bakery", "butcher", "pastry", "deli", "greengrocer", "general", "farm", "marketplace"}, want: 4},
		{name: "first aid", give: []string{"pharmacy", "PHARMACY"}, want: 9},
		{name: "summit", give: []string{"viewpoint"}, want: 1},
		{name: "water", give: []string{"drinking_water"}, want: 3},
		{name: "generic", give: []string{"attraction", "camp_site", "hotel", "hostel", "other", ""}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, category := range tt.give {
				assert.Equal(t, tt.want, export.CoursePointTypeOf(category), "%q", category)
			}
		})
	}
}
