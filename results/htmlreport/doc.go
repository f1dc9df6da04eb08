// Package htmlreport renders a benchmark report as a static web page:
// Files turns a results.Report into index.html, report.css and report.js,
// beside the report's README.md. The page shows the runs, every section of
// the Markdown report as sortable, filterable tables and SVG plots, and a
// view that compares any two stored runs. Every number it shows is
// computed in Go (the compare view's statistics by benchmath, as the
// compare command computes them); the script only picks, orders and hides,
// and the page fetches nothing at view time.
package htmlreport
