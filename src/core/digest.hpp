#pragma once
// Content digests for files secpe reads back (checkpoints): BLAKE2b-256 from libsodium, as
// lower-case hex. They detect damage and edits made without secpe; they are not a signature.
#include <string>
#include <string_view>

namespace secpe {

std::string blake2b_256_hex(std::string_view data);

}  // namespace secpe
