package alerts

import (
	"math"
	"time"

	"cairn.dev/cairn/modules/route/geo"
)

// Sky says whether civil twilight ends on a given day at a given place.
type Sky int

const (
	// SkyDusk: civil twilight ends, at the time CivilDusk returns.
	SkyDusk Sky = iota
	// SkyPolarDay: the sun stays higher than 6° below the horizon through the
	// night (midnight sun, or white nights just south of it); it never gets
	// dark enough for twilight to end.
	SkyPolarDay
	// SkyPolarNight: the sun stays lower than 6° below the horizon all day;
	// there is no civil twilight to end.
	SkyPolarNight
)

// civilDepression is the sun's altitude at the end of civil twilight: its
// centre 6° below the geometric horizon, with no refraction correction (the
// definition of civil twilight, unlike sunset's −0.833°).
const civilDepression = -6.0

// duskRounds is how many times the dusk estimate is refined. Each round
// re-evaluates the sun's declination and the equation of time at the latest
// estimate; the third already moves it by well under a second.
const duskRounds = 4

// CivilDusk is the instant civil twilight ends on the evening of the given
// calendar day at p, with Sky == SkyDusk; otherwise Sky tells which polar
// case holds and the time is zero.
//
// The day is the local one: its evening follows the solar noon nearest to
// noon local mean time (12:00 − longitude/15° h UTC), so the answer does not
// depend on a time zone. Near the polar circles the evening's dusk can fall
// after midnight (Oslo at the June solstice: 00:28 the next day).
//
// The sun's position follows the NOAA Solar Calculator's algorithm (NOAA
// Global Monitoring Laboratory), itself the low-precision solar coordinates
// of Jean Meeus, Astronomical Algorithms (2nd ed., ch. 25 and 28):
// declination and equation of time from the mean longitude and anomaly,
// then the sunrise equation's hour angle for an altitude of −6°. It is
// within a minute or two of high-precision ephemerides at mid latitudes and
// a few minutes where the sun grazes −6° near the polar circles.
func CivilDusk(p geo.Point, year int, month time.Month, day int) (time.Time, Sky) {
	midnight := time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
	jd0 := julianDay(midnight)
	lon := math.Remainder(p.Lon, 360) // east positive, in [−180, 180]
	phi := radians(p.Lat)
	sinAlt := math.Sin(radians(civilDepression))

	// Minutes after midnight UTC of the instant the sun is evaluated at:
	// local mean noon for the first round, which only locates the evening,
	// then the latest dusk estimate.
	minutes := 720 - 4*lon
	for range duskRounds {
		decl, eot := sunAt(jd0 + minutes/1440)
		cosH := (sinAlt - math.Sin(phi)*math.Sin(decl)) / (math.Cos(phi) * math.Cos(decl))
		switch {
		case cosH > 1:
			return time.Time{}, SkyPolarNight
		case cosH < -1:
			return time.Time{}, SkyPolarDay
		}
		// Solar noon is 720 − 4·lon − eot minutes UTC; the hour angle adds
		// 4 minutes per degree.
		minutes = 720 - 4*lon - eot + 4*degrees(math.Acos(cosH))
	}
	return midnight.Add(time.Duration(math.Round(minutes*60)) * time.Second), SkyDusk
}

// julianDay is the Julian day number of t (days since noon UT, 1 January
// 4713 BC, proleptic Julian calendar), from the Unix epoch at JD 2440587.5.
func julianDay(t time.Time) float64 {
	return float64(t.Unix())/86400 + 2440587.5
}

// sunAt is the sun's apparent declination (radians) and the equation of time
// (minutes, apparent minus mean solar time) at Julian day jd, by the NOAA
// Solar Calculator's formulas (Meeus, Astronomical Algorithms, ch. 25 and
// 28). Universal time stands in for dynamical time: the minute or so between
// them moves the sun by far less than the formulas' own error.
func sunAt(jd float64) (decl, eot float64) {
	t := (jd - 2451545) / 36525 // Julian centuries since J2000.0

	meanLong := math.Mod(280.46646+t*(36000.76983+t*0.0003032), 360) // degrees
	meanAnomaly := radians(357.52911 + t*(35999.05029-0.0001537*t))
	ecc := 0.016708634 - t*(0.000042037+0.0000001267*t) // of Earth's orbit

	center := math.Sin(meanAnomaly)*(1.914602-t*(0.004817+0.000014*t)) +
		math.Sin(2*meanAnomaly)*(0.019993-0.000101*t) +
		math.Sin(3*meanAnomaly)*0.000289
	omega := radians(125.04 - 1934.136*t) // longitude of the Moon's ascending node
	apparentLong := radians(meanLong + center - 0.00569 - 0.00478*math.Sin(omega))

	meanObliquity := 23 + (26+(21.448-t*(46.815+t*(0.00059-t*0.001813)))/60)/60
	obliquity := radians(meanObliquity + 0.00256*math.Cos(omega))

	decl = math.Asin(math.Sin(obliquity) * math.Sin(apparentLong))

	y := math.Tan(obliquity / 2)
	y *= y
	l0 := radians(meanLong)
	eot = 4 * degrees(y*math.Sin(2*l0)-
		2*ecc*math.Sin(meanAnomaly)+
		4*ecc*y*math.Sin(meanAnomaly)*math.Cos(2*l0)-
		0.5*y*y*math.Sin(4*l0)-
		1.25*ecc*ecc*math.Sin(2*meanAnomaly))
	return decl, eot
}

func radians(deg float64) float64 { return deg * math.Pi / 180 }
func degrees(rad float64) float64 { return rad * 180 / math.Pi }
