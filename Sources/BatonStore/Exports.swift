// Callers of the store (`Store.submit`, the seams it implements) keep importing BatonStore alone.
@_exported import BatonSeams
