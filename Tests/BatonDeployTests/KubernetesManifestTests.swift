import Foundation
import Testing
import Yams

/// deploy/kubernetes, checked structurally (kubectl is not available here): every document is a
/// named object without a namespace, selectors match their pods, probes and scrape annotations
/// point at a declared port, every Secret and ConfigMap referenced exists in the folder, and every
/// container runs a real `baton` subcommand with flags the CLI accepts.
@Suite("Kubernetes manifests")
struct KubernetesManifestTests {
    typealias Object = [String: Any]

    struct Document {
        let file: String
        let object: Object
        var kind: String { object["kind"] as? String ?? "" }
        var name: String { (object["metadata"] as? Object)?["name"] as? String ?? "" }
        var spec: Object { object["spec"] as? Object ?? [:] }
        var where_: String { "\(file): \(kind) '\(name)'" }
    }

    static func documents() throws -> [Document] {
        var documents: [Document] = []
        for url in DeployFiles.files(in: DeployFiles.folder("kubernetes"), endingWith: [".yaml", ".yml"]) {
            for case let object as Object in try Yams.load_all(yaml: DeployFiles.text(url)) {
                documents.append(Document(file: url.lastPathComponent, object: object))
            }
        }
        return documents
    }

    /// Pod templates (Deployments and Jobs) with their containers.
    static func podSpecs(_ documents: [Document]) -> [(Document, Object)] {
        documents.compactMap { document in
            guard ["Deployment", "Job"].contains(document.kind), let template = document.spec["template"] as? Object,
                let spec = template["spec"] as? Object
            else { return nil }
            return (document, spec)
        }
    }

    @Test("every document has apiVersion, kind and metadata.name, and no namespace")
    func namedObjects() throws {
        let documents = try Self.documents()
        #expect(documents.count >= 10)
        for document in documents {
            #expect(document.object["apiVersion"] is String, "\(document.file): apiVersion")
            #expect(!document.kind.isEmpty, "\(document.file): kind")
            if document.kind != "Kustomization" {
                #expect(!document.name.isEmpty, "\(document.file): metadata.name")
                #expect((document.object["metadata"] as? Object)?["namespace"] == nil, "\(document.where_): sets a namespace")
            }
        }
        let kinds = Set(documents.map(\.kind))
        for kind in ["Deployment", "Job", "ConfigMap", "Secret", "HorizontalPodAutoscaler", "ScaledObject", "PodDisruptionBudget"] {
            #expect(kinds.contains(kind), "no \(kind)")
        }
    }

    @Test("the kustomization lists files that exist, and not both autoscalers")
    func kustomization() throws {
        let folder = DeployFiles.folder("kubernetes")
        let object = try #require(try Yams.load(yaml: DeployFiles.text(folder.appendingPathComponent("kustomization.yaml"))) as? Object)
        let resources = try #require(object["resources"] as? [String])
        for resource in resources {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(resource).path), "missing \(resource)")
        }
        #expect(resources.contains("worker-hpa.yaml") != resources.contains { $0.hasPrefix("keda") })
        // The image name the manifests use is the one the kustomization rewrites.
        let images = try #require(object["images"] as? [Object])
        for (document, spec) in Self.podSpecs(try Self.documents()) {
            for container in spec["containers"] as? [Object] ?? [] {
                #expect(images.contains { $0["name"] as? String == container["image"] as? String }, "\(document.where_): image")
            }
        }
    }

    @Test("two coordinators, selectors that match their pods, workers scaled by an HPA and a KEDA example")
    func workloads() throws {
        let documents = try Self.documents()
        let deployments = Dictionary(uniqueKeysWithValues: documents.filter { $0.kind == "Deployment" }.map { ($0.name, $0) })
        #expect(deployments["baton-coordinator"]?.spec["replicas"] as? Int == 2)
        #expect(deployments["baton-worker"] != nil)
        for document in documents where ["Deployment", "Job", "PodDisruptionBudget"].contains(document.kind) {
            let labels = ((document.spec["template"] as? Object)?["metadata"] as? Object)?["labels"] as? [String: String]
            let selector = (document.spec["selector"] as? Object)?["matchLabels"] as? [String: String]
            if document.kind == "Deployment" {
                let selector = try #require(selector, "\(document.where_): selector")
                let labels = try #require(labels, "\(document.where_): template labels")
                for (key, value) in selector { #expect(labels[key] == value, "\(document.where_): selector \(key) does not match the pods") }
            }
            if document.kind == "PodDisruptionBudget" {
                let selector = try #require(selector)
                let targets = deployments.values.filter { deployment in
                    let labels = ((deployment.spec["template"] as? Object)?["metadata"] as? Object)?["labels"] as? [String: String] ?? [:]
                    return selector.allSatisfy { labels[$0.key] == $0.value }
                }
                #expect(targets.map(\.name) == ["baton-coordinator"], "\(document.where_): selects \(targets.map(\.name))")
            }
        }
        for document in documents where document.kind == "HorizontalPodAutoscaler" || document.kind == "ScaledObject" {
            let target = try #require(document.spec["scaleTargetRef"] as? Object)
            #expect(deployments[target["name"] as? String ?? ""] != nil, "\(document.where_): scales a Deployment that does not exist")
        }
        let keda = try #require(documents.first { $0.kind == "ScaledObject" })
        let trigger = try #require((keda.spec["triggers"] as? [Object])?.first)
        #expect(trigger["type"] as? String == "rabbitmq")
        let queue = try #require((trigger["metadata"] as? Object)?["queueName"] as? String)
        #expect(try Regex(queue).wholeMatch(in: "baton.tasks.default:baton.echo") != nil, "the KEDA trigger misses Baton's task queues")
        let auth = try #require((keda.spec["triggers"] as? [Object])?.first?["authenticationRef"] as? Object)
        #expect(documents.contains { $0.kind == "TriggerAuthentication" && $0.name == auth["name"] as? String })
    }

    @Test("containers run real baton subcommands with flags the CLI accepts")
    func commands() throws {
        var seen: Set<String> = []
        for (document, spec) in Self.podSpecs(try Self.documents()) {
            for container in spec["containers"] as? [Object] ?? [] {
                let arguments = try #require(container["args"] as? [String], "\(document.where_): args")
                let subcommand = try #require(arguments.first)
                seen.insert(subcommand)
                #expect(try DeployFiles.unknownFlags(subcommand, Array(arguments.dropFirst())) == [], "\(document.where_)")
            }
        }
        #expect(seen == ["coordinator", "worker", "migrate"])
    }

    @Test("probes and scrape annotations point at the declared --metrics port; graceful stop covers the drain")
    func probesAndStop() throws {
        for (document, spec) in Self.podSpecs(try Self.documents()) where document.kind == "Deployment" {
            let template = try #require(document.spec["template"] as? Object)
            let annotations = (template["metadata"] as? Object)?["annotations"] as? [String: String] ?? [:]
            let container = try #require((spec["containers"] as? [Object])?.first)
            let arguments = container["args"] as? [String] ?? []
            let ports = container["ports"] as? [Object] ?? []
            let metricsPort = try #require(ports.first { $0["name"] as? String == "metrics" }?["containerPort"] as? Int, "\(document.where_)")
            let listen = try #require(DeployFiles.value(of: "--metrics", in: arguments), "\(document.where_): no --metrics")
            #expect(listen == "0.0.0.0:\(metricsPort)", "\(document.where_): --metrics \(listen) is not the container port")
            #expect(annotations["prometheus.io/scrape"] == "true")
            #expect(annotations["prometheus.io/port"] == String(metricsPort))
            #expect(annotations["prometheus.io/path"] == "/metrics")
            for (probe, path) in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")] {
                let get = try #require((container[probe] as? Object)?["httpGet"] as? Object, "\(document.where_): \(probe)")
                #expect(get["path"] as? String == path, "\(document.where_): \(probe) path")
                let port = get["port"]
                #expect(port as? String == "metrics" || port as? Int == metricsPort, "\(document.where_): \(probe) port is not declared")
            }
            let resources = try #require(container["resources"] as? Object, "\(document.where_): resources")
            #expect(resources["requests"] != nil && resources["limits"] != nil, "\(document.where_): requests and limits")
            let grace = try #require(spec["terminationGracePeriodSeconds"] as? Int, "\(document.where_): terminationGracePeriodSeconds")
            if let drain = DeployFiles.value(of: "--shutdown-grace", in: arguments).flatMap(Double.init) {
                #expect(Double(grace) > drain + 5, "\(document.where_): \(grace) s does not cover --shutdown-grace \(drain) s")
            }
        }
    }

    @Test("every Secret and ConfigMap referenced exists with that key; workers get no database URL")
    func references() throws {
        let documents = try Self.documents()
        func keys(_ kind: String, _ name: String) -> Set<String>? {
            guard let document = documents.first(where: { $0.kind == kind && $0.name == name }) else { return nil }
            let data = (document.object["stringData"] as? Object ?? [:]).merging(document.object["data"] as? Object ?? [:]) { a, _ in a }
            return Set(data.keys)
        }
        var referenced = 0
        for (document, spec) in Self.podSpecs(documents) {
            for container in spec["containers"] as? [Object] ?? [] {
                for source in container["envFrom"] as? [Object] ?? [] {
                    if let name = (source["configMapRef"] as? Object)?["name"] as? String {
                        #expect(keys("ConfigMap", name) != nil, "\(document.where_): no ConfigMap '\(name)'")
                        referenced += 1
                    }
                    if let name = (source["secretRef"] as? Object)?["name"] as? String {
                        #expect(keys("Secret", name) != nil, "\(document.where_): no Secret '\(name)'")
                    }
                }
                var names: [String] = []
                for variable in container["env"] as? [Object] ?? [] {
                    names.append(variable["name"] as? String ?? "")
                    let from = variable["valueFrom"] as? Object ?? [:]
                    for (kind, field) in [("Secret", "secretKeyRef"), ("ConfigMap", "configMapKeyRef")] {
                        guard let ref = from[field] as? Object else { continue }
                        let name = ref["name"] as? String ?? "", key = ref["key"] as? String ?? ""
                        #expect(keys(kind, name)?.contains(key) == true, "\(document.where_): \(kind) '\(name)' has no key '\(key)'")
                        referenced += 1
                    }
                }
                if document.name == "baton-worker" { #expect(!names.contains("BATON_DATABASE_URL"), "workers hold no database credentials") }
            }
        }
        #expect(referenced >= 7)
        // Example secrets say so.
        for document in documents where document.kind == "Secret" {
            let values = (document.object["stringData"] as? [String: String] ?? [:]).values
            #expect(values.allSatisfy { $0.contains("CHANGE-ME") }, "\(document.where_): not clearly a placeholder")
        }
    }

    @Test("one broker user per role: each workload's Secret holds its own role's AMQP user, the migration's too")
    func brokerUserPerRole() throws {
        let documents = try Self.documents()
        func secret(_ name: String) -> [String: String] {
            documents.first { $0.kind == "Secret" && $0.name == name }?.object["stringData"] as? [String: String] ?? [:]
        }
        var users: [String: String] = [:]
        for (document, spec) in Self.podSpecs(documents) {
            let role = String(document.name.dropFirst("baton-".count))
            for container in spec["containers"] as? [Object] ?? [] {
                let amqp = (container["env"] as? [Object] ?? []).first { $0["name"] as? String == "BATON_AMQP_URL" }
                let ref = (amqp?["valueFrom"] as? Object)?["secretKeyRef"] as? Object
                let name = try #require(ref?["name"] as? String, "\(document.where_): no BATON_AMQP_URL from a Secret")
                #expect(name == "baton-\(role)-secrets", "\(document.where_): reads \(name)")
                let url = try #require(secret(name)["BATON_AMQP_URL"], "\(name): no BATON_AMQP_URL")
                let user = url.split(separator: "/").dropFirst().first?.split(separator: ":").first.map(String.init) ?? ""
                users[role] = user
            }
        }
        #expect(users == ["coordinator": "baton-coordinator", "worker": "baton-worker", "migrate": "baton-migrate"], "\(users)")
        #expect(secret("baton-worker-secrets")["BATON_DATABASE_URL"] == nil, "workers hold no database credentials")
    }
}
