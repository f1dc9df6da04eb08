// Package slab runs a variant on horizontal slabs of the image.
package slab
