import Foundation
import Testing
@testable import CoreDataStoreKit

/// SHA-512 gives the FIPS 180-4 digests, on both sides of every padding boundary (111, 112 and 128 bytes).
struct SHA512Tests {
    static let vectors: [(String, Data, String)] = [
        ("empty", Data(), "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", Data("abc".utf8), "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("two blocks", Data("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8),
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
        ("111 a", Data(repeating: 0x61, count: 111), "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2"),
        ("112 a", Data(repeating: 0x61, count: 112), "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca"),
        ("128 a", Data(repeating: 0x61, count: 128), "b73d1929aa615934e61a871596b3f3b33359f42b8175602e89f7e06e5f658a243667807ed300314b95cacdd579f3e33abdfbe351909519a846d465c59582f321"),
        ("a million a", Data(repeating: 0x61, count: 1_000_000),
         "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ]

    @Test(arguments: vectors.indices)
    func knownDigests(_ index: Int) {
        let (name, message, expected) = Self.vectors[index]
        let digest = SHA512.digest(message)
        #expect(digest.count == 64)
        #expect(digest.map { String(format: "%02x", $0) }.joined() == expected, "\(name)")
    }
}
