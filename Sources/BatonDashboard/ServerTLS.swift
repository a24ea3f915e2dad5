import Foundation
import HummingbirdTLS

/// `--tls-cert FILE --tls-key FILE`: the server's TLS configuration from PEM files, or one line
/// saying which file is wrong and why.
public enum ServerTLS {
    /// Checks both files now, so a bad one stops `baton server` before it listens.
    public static func check(_ files: DashboardConfiguration.TLSFiles) throws(DashboardError) {
        _ = try configuration(files)
    }

    static func configuration(_ files: DashboardConfiguration.TLSFiles) throws(DashboardError) -> TLSConfiguration {
        for (flag, path) in [("--tls-cert", files.certificate), ("--tls-key", files.key)] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw DashboardError(status: 400, "\(flag) \(path): cannot read the file (missing, or no permission)")
            }
        }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(files.certificate) } catch {
            throw DashboardError(status: 400, "--tls-cert \(files.certificate): not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw DashboardError(status: 400, "--tls-cert \(files.certificate): no certificate in the file") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: files.key, format: .pem) } catch {
            throw DashboardError(status: 400, "--tls-key \(files.key): not a PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}
