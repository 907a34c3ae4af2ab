export { sandboxOnchainTransferHandler as POST } from "@/lib/sandbox/handlers";
