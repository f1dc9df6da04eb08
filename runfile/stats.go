package runfile

// Confidence is the level of the confidence intervals of medians read
// from runs: the report's tables and the comparison of two runs print
// them at this level. benchmath's interval of a median is made of order
// statistics, and at the 95% that benchstat uses by default it needs six
// runs or more to be finite; the stored runs have five, which at 90% give
// the range of the runs, an interval of 94% confidence.
const Confidence = 0.90
