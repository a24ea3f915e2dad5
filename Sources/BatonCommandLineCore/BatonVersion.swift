/// The version of Baton, as `baton --version` prints it. The one place it is written.
public enum BatonVersion {
    public static let number = "0.3.0"
}
