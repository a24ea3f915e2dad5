// The test kit's runs go through `LocalEngine` on a `TestClock` (`BatonLocal`): one import for a test.
@_exported import BatonLocal
