package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// The data is made through the API, as a client would make it: a GPX
// upload cuts its days synchronously, so a trip has days without any
// network, and its enrichments run on the server's own queue.

// routeKm is the length of a seeded route; with three calendar days it is
// cut into three days of about 60 km.
const routeKm = 180

// gpxRoute is a track of km kilometres heading east, a point every 100 m,
// on rolling ground.
func gpxRoute(km int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<gpx version="1.1" creator="loadbench" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Benchmark route</name><trkseg>` + "\n")
	const lat0, lon0, step = 45.0, 6.0, 100.0 // degrees, degrees, metres
	dLon := step / (111_320 * math.Cos(lat0*math.Pi/180))
	for i := 0; i <= km*10; i++ {
		ele := 400 + 150*math.Sin(float64(i)/60)
		fmt.Fprintf(&b, `<trkpt lat="%.6f" lon="%.6f"><ele>%.1f</ele></trkpt>`+"\n",
			lat0+0.01*math.Sin(float64(i)/200), lon0+float64(i)*dLon, ele)
	}
	b.WriteString("</trkseg></trk></gpx>\n")
	return b.Bytes()
}

// api is a plain client of a running Cairn, for seeding and reading back.
type api struct {
	base   string // http://host:port
	client *http.Client
}

func (a api) do(method, path, token string, body []byte, contentType string, headers ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := a.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res, raw, err
}

// seededTrip is an uploaded trip: its id, its days and its version.
type seededTrip struct {
	ID      string
	Days    []string
	Version int64
}

// upload creates a trip from the benchmark route, starting in a month so
// that it is not locked, over three calendar days.
func (a api) upload(token string, gpx []byte) (seededTrip, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	start := time.Now().UTC().AddDate(0, 1, 0)
	_ = w.WriteField("startDate", start.Format(time.DateOnly))
	_ = w.WriteField("endDate", start.AddDate(0, 0, 2).Format(time.DateOnly))
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="gpxFile"; filename="route.gpx"`)
	h.Set("Content-Type", "application/gpx+xml")
	part, err := w.CreatePart(h)
	if err != nil {
		return seededTrip{}, err
	}
	_, _ = part.Write(gpx)
	_ = w.Close()
	// A creation over HTTP names its intent, so that a retry is recognised.
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	res, raw, err := a.do(http.MethodPost, "/trips/gpx-upload", token, body.Bytes(), w.FormDataContentType(),
		"Idempotency-Key", "loadbench-"+hex.EncodeToString(key))
	if err != nil {
		return seededTrip{}, err
	}
	if res.StatusCode/100 != 2 {
		return seededTrip{}, fmt.Errorf("upload: status %d: %.300s", res.StatusCode, raw)
	}
	var out struct {
		ID      string `json:"id"`
		Version int64  `json:"version"`
		Days    []struct {
			ID string `json:"id"`
		} `json:"days"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return seededTrip{}, err
	}
	t := seededTrip{ID: out.ID, Version: out.Version}
	for _, d := range out.Days {
		t.Days = append(t.Days, d.ID)
	}
	return t, nil
}

// settle waits until every computation of the trip is settled and returns
// its version.
func (a api) settle(token, id string) (int64, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, raw, err := a.do(http.MethodGet, "/trips/"+id, token, nil, "")
		if err != nil {
			return 0, err
		}
		if res.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("read %s: status %d: %.300s", id, res.StatusCode, raw)
		}
		var st struct {
			ComputationStatus map[string]string `json:"computationStatus"`
			Version           int64             `json:"version"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			return 0, err
		}
		busy := false
		for _, s := range st.ComputationStatus {
			busy = busy || s == "pending" || s == "running"
		}
		if !busy {
			return st.Version, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("trip %s still computing after a minute: %v", id, st.ComputationStatus)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// etag reads a version from an ETag header ("3").
func etag(h string) (int64, bool) {
	// A tag may carry a suffix after the version ("3-…"): the version leads.
	v, _, _ := strings.Cut(strings.Trim(strings.TrimPrefix(h, "W/"), `"`), "-")
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
