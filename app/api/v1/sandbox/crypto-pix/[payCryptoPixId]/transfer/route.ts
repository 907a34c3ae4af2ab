export { sandboxCryptoPixTransferHandler as POST } from "@/lib/sandbox/handlers";
