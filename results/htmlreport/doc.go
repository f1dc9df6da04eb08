// Package htmlreport renders a benchmark report as a static web page.
//
// Files turns a results.Report into index.html and its two assets,
// report.css and report.js, written beside the report's README.md: the
// runs first (a user's own, newest first, in a report of other runs than
// the committed ones), then every section of the Markdown report, then a
// view that compares any two stored runs. Tables are HTML tables that
// sort by any column and filter by row text and by the page's facets
// (GPU, variant, filter, K, type, timing, size); plots are SVG drawn here
// from the report's plot data, with the value of the point under the
// pointer shown beside it. Every number the page shows is computed in Go:
// the compare view's medians, intervals and Mann-Whitney p values come
// from benchmath as the compare command computes them, and the script
// only picks, orders and hides what the page holds. Nothing is fetched
// at view time: the page reads no network and no file but its assets and
// the plots the report writes beside it.
package htmlreport
