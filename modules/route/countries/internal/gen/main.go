// Command gen rebuilds data/borders.tsv.gz, the offline country borders
// embedded by package countries, from the npm package @ideditor/country-coder
// (ISC licence), whose borders.json is what the OpenStreetMap iD editor
// codes countries with.
//
// Run it from the countries package with `go generate`, which packs the
// tarball with npm into a temporary folder; or hand it one already fetched:
//
//	npm pack @ideditor/country-coder@5.1.0
//	go run ./internal/gen -tarball ideditor-country-coder-5.1.0.tgz -out data/borders.tsv.gz
//
// Each line of the output is one polygon: its country (ISO 3166-1 alpha-2),
// its bounding box, then its rings (the outer one first, holes after) as
// lon,lat pairs in hundred-thousandths of a degree. Same tarball, same bytes.
package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// pinned is the package version: new borders are a reviewed change of this
// line and of the data file, never a silent one.
const pinned = "@ideditor/country-coder@5.1.0"

type feature struct {
	Properties struct {
		Country string `json:"country"`
		ISO     string `json:"iso1A2"`
	} `json:"properties"`
	Geometry *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
}

func main() {
	tarball := flag.String("tarball", "", "the npm tarball of "+pinned+" (default: npm pack it)")
	out := flag.String("out", "data/borders.tsv.gz", "where to write the borders")
	flag.Parse()
	if *tarball == "" {
		dir, err := os.MkdirTemp("", "countries-gen")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", pinned, "--pack-destination", dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("npm pack: %v", err)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
		if len(matches) != 1 {
			log.Fatal("npm pack made no tarball")
		}
		*tarball = matches[0]
	}
	raw, err := borders(*tarball)
	if err != nil {
		log.Fatal(err)
	}
	var fc struct {
		Features []feature `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	n := 0
	for _, ft := range fc.Features {
		cc := ft.Properties.Country
		if cc == "" {
			cc = ft.Properties.ISO
		}
		if ft.Geometry == nil || len(cc) != 2 {
			continue
		}
		var polys [][][][2]float64
		switch ft.Geometry.Type {
		case "Polygon":
			var p [][][2]float64
			if err := json.Unmarshal(ft.Geometry.Coordinates, &p); err != nil {
				log.Fatal(err)
			}
			polys = append(polys, p)
		case "MultiPolygon":
			if err := json.Unmarshal(ft.Geometry.Coordinates, &polys); err != nil {
				log.Fatal(err)
			}
		default:
			continue
		}
		for _, p := range polys {
			writePolygon(w, cc, p)
			n++
		}
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %d polygons to %s\n", n, *out)
}

func writePolygon(w *bufio.Writer, cc string, rings [][][2]float64) {
	minLat, minLon, maxLat, maxLon := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range rings[0] {
		minLon, maxLon = math.Min(minLon, q[0]), math.Max(maxLon, q[0])
		minLat, maxLat = math.Min(minLat, q[1]), math.Max(maxLat, q[1])
	}
	fmt.Fprintf(w, "%s\t%d %d %d %d", cc, e5(minLat), e5(minLon), e5(maxLat), e5(maxLon))
	for _, r := range rings {
		parts := make([]string, 0, len(r)*2)
		for _, q := range r {
			parts = append(parts, strconv.FormatInt(e5(q[0]), 10), strconv.FormatInt(e5(q[1]), 10))
		}
		w.WriteString("\t" + strings.Join(parts, ","))
	}
	w.WriteString("\n")
}

func e5(deg float64) int64 { return int64(math.Round(deg * 1e5)) }

// borders reads package/src/data/borders.json out of the tarball.
func borders(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no package/src/data/borders.json in the tarball")
		}
		if err != nil {
			return nil, err
		}
		if h.Name == "package/src/data/borders.json" {
			return io.ReadAll(tr)
		}
	}
}
